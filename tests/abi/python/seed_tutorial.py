# The seed tutorial's first method (../shared/seeds/000, "Method 1: the Trainer API") as written
# there, with two changes only: the import lines (rxt for tvm) and the model-definition step (the
# MLP in rxt's text form instead of TVMScript). test_seed_tutorial.py runs it where .temp holds
# Fashion-MNIST (torchvision finds the files and downloads nothing) and checks the accuracy it
# prints. The seed's own slips are kept: it builds `Trainer(Backbone, ...)` where it defined `MLP`
# (Backbone is bound to MLP below, in the model-definition step), and compiles a VM it never uses.
import numpy as np
import rxt as tvm  # changed: the imports
from rxt.training.loss import CrossEntropyLoss
from rxt.training.setup_trainer import SetupTrainer
from rxt.training.trainer import Trainer
from rxt import relax
from rxt.transform import LegalizeOps
from rxt.training.optimizer import SGD
batch_size = 64
import torch
import torch.utils.data
import torchvision
import torchvision.transforms as Tr
import torch.nn.functional as Func
train_data = torchvision.datasets.FashionMNIST(
root=".temp",
train=True,
download=True,
transform=Tr.Compose([Tr.ToTensor(), Tr.Lambda(torch.flatten)]),
target_transform=lambda x:Func.one_hot(torch.tensor(x), 10).float()
)
test_data = torchvision.datasets.FashionMNIST(
root=".temp",
train=False,
download=True,
transform=Tr.Compose([Tr.ToTensor(), Tr.Lambda(torch.flatten)]),
target_transform=lambda x:Func.one_hot(torch.tensor(x), 10).float()
)
train_loader = torch.utils.data.DataLoader(train_data, batch_size=batch_size, shuffle=True, drop_last=True)
test_loader = torch.utils.data.DataLoader(test_data, batch_size=batch_size, shuffle=False, drop_last=True)
class_names = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']
import matplotlib.pyplot as plt
img, label = next(iter(train_loader))
img = img[0].reshape(1, 28, 28).numpy()
plt.figure()
plt.imshow(img[0])
plt.colorbar()
plt.grid(False)
plt.show()
print("Class:", class_names[label.argmax()])
# changed: the model-definition step (rxt's text form of the seed's TVMScript MLP)
MLP = tvm.Module.parse(f"""attributes {{param_num = 6, state_num = 0}}

def @backbone(%x: Tensor(({batch_size}, 784), float32), %w0: Tensor((784, 128), float32),
              %b0: Tensor((128,), float32), %w1: Tensor((128, 128), float32), %b1: Tensor((128,), float32),
              %w2: Tensor((128, 10), float32), %b2: Tensor((10,), float32)) -> Tensor(({batch_size}, 10), float32) {{
  dataflow {{
    %lv0 = matmul(%x, %w0)
    %lv1 = add(%lv0, %b0)
    %lv2 = nn.relu(%lv1)
    %lv3 = matmul(%lv2, %w1)
    %lv4 = add(%lv3, %b1)
    %lv5 = nn.relu(%lv4)
    %lv6 = matmul(%lv5, %w2)
    %out = add(%lv6, %b2)
    output %out
  }}
  return %out
}}
""")
Backbone = MLP
loss = CrossEntropyLoss(reduction="sum")
opt = SGD(0.01, weight_decay=0.01)
out_sinfo = relax.TensorStructInfo((batch_size, 10), "float32")
label_sinfo = relax.TensorStructInfo((batch_size, 10), "int64")
setup_trainer = SetupTrainer(loss, opt, [out_sinfo, label_sinfo])
target = "llvm"
dev = tvm.device(target, 0)
train_mod = setup_trainer(MLP)
ex = tvm.compile(train_mod, target)
vm = relax.VirtualMachine(ex, dev, profile=True)
trainer = Trainer(Backbone, 6, setup_trainer)
# build the IRModule in the trainer
trainer.build(target="llvm", device=tvm.cpu(0))
trainer.xaiver_uniform_init_params()
epochs = 5
log_interval = 200
for epoch in range(epochs):
    for batch_idx, (data, target) in enumerate(train_loader):
        loss = trainer.update_params(data.numpy(), target.numpy())
        if batch_idx % log_interval == 0 or batch_idx == len(train_loader):
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)} "
                  f"({100. * batch_idx / len(train_loader):.0f}%)]\tLoss: {loss.numpy():.2f}")
    total, correct = 0, 0
    for data, target in test_loader:
        predict = trainer.predict(data.numpy()) # batch_size * 10
        total += len(data)
        correct += np.sum(predict.numpy().argmax(1) == target.numpy().argmax(1))
    print(f"Train Epoch: {epoch} Accuracy on test dataset: {100.0 * correct / total:.2f}%")
