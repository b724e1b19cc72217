"""torch.fx -> rxt backbone: from_fx(graph_module, input_info) and from_torch(module, inputs).

The graph's nodes become op calls of one function, @backbone, built through the C ABI's IR
builder (rxt_function_builder_*): its parameters are the graph's inputs, then the module's
trainable parameters (param_num, named as named_parameters() names them), then its states
(state_num: the BatchNorm buffers running_mean, running_var and num_batches_tracked, named as
named_buffers() does, and rxt_step when dropout draws masks); it returns the graph's outputs,
then each state's next value. Every node the importer cannot convert is reported at once."""
import collections

import torch
import torch.fx
import torch.nn as nn

from .. import _ir, _lib
from . import _attention, _nn_ops, _tensor_ops  # noqa: F401 (they fill the converter tables)
from ._context import Context, Unsupported, Var, dtype_name, tensor_struct_info
from ._registry import describe_target, find_converter
from .backbone import Backbone


class UnsupportedError(_lib.Error):
    """Nodes the importer has no mapping for; |nodes| lists (target, node name, reason)."""

    def __init__(self, nodes):
        groups = collections.OrderedDict()
        for target, node, reason in nodes:
            groups.setdefault((target, reason), []).append(node)
        parts = []
        for (target, reason), names in groups.items():
            count = f"{len(names)} nodes, first '{names[0]}'" if len(names) > 1 else f"node '{names[0]}'"
            parts.append(f"{target} ({count}){': ' + reason if reason else ''}")
        super().__init__("unimplemented", f"rxt.frontend: {len(nodes)} node(s) cannot be imported: " + "; ".join(parts))
        self.nodes = nodes


def _stateful_buffers(graph_module):
    """The buffers that are states: those of the BatchNorm modules the graph calls."""
    ids = set()
    for node in graph_module.graph.nodes:
        if node.op != "call_module":
            continue
        module = graph_module.get_submodule(node.target)
        if isinstance(module, nn.modules.batchnorm._BatchNorm) and module.running_mean is not None:
            for buffer in (module.running_mean, module.running_var, module.num_batches_tracked):
                if buffer is not None:
                    ids.add(id(buffer))
    for node in graph_module.graph.nodes:  # F.batch_norm on buffers read with get_attr
        if node.op == "call_function" and node.target is torch.nn.functional.batch_norm:
            for arg in node.args[1:3]:
                if isinstance(arg, torch.fx.Node) and arg.op == "get_attr":
                    ids.add(id(_attribute(graph_module, arg.target)))
    return ids


def _attribute(root, qualified_name):
    value = root
    for part in qualified_name.split("."):
        value = getattr(value, part)
    return value


def _flatten_outputs(value):
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flatten_outputs(item)]
    if isinstance(value, dict):
        return [v for item in value.values() for v in _flatten_outputs(item)]
    return [value]


def _input_struct_info(info, name):
    shape, dtype = info
    if isinstance(dtype, torch.dtype):
        dtype = dtype_name(dtype)
    return tensor_struct_info(list(shape), dtype)


def from_fx(graph_module, input_info, training=None, dropout=True, function_name="backbone", call_function_map=None,
            call_method_map=None, call_module_map=None, _root=None):
    """The backbone of a torch.fx GraphModule (torch.fx.symbolic_trace(module)).

    |input_info|: one (shape, dtype) per placeholder, the MLC course's form, e.g.
    [((1, 784), "float32")]; a dim may be a name ("n") for a symbolic one. |training|: the import's
    mode, by default the module's (BatchNorm on batch statistics, updating its states, and
    Dropout drawing masks in training; eval: running statistics, no dropout). |dropout|=False
    makes Dropout the identity in training too (to compare against a reference whose masks are
    its own). |call_function_map| (a target -> converter), |call_method_map| (a Tensor method's
    name -> converter) and |call_module_map| (an nn.Module type -> converter) add conversions or
    replace the importer's, as the MLC course's from_fx takes them: a converter gets the import's
    context (cx.op("name", [args], **attrs) builds an op; docs/python.md) and the node's
    arguments, a module's converter the module and its qualified name first. Returns a Backbone:
    an rxt.Module with the parameters' and states' values."""
    overrides = {"call_function": call_function_map or {}, "call_method": call_method_map or {},
                 "call_module": call_module_map or {}}
    training = graph_module.training if training is None else bool(training)
    options = {"training": training, "dropout": bool(dropout)}
    graph = graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(input_info) != len(placeholders):
        raise ValueError(f"rxt.frontend.from_fx: the graph has {len(placeholders)} inputs "
                         f"({', '.join(p.target for p in placeholders)}) but input_info gives {len(input_info)}")
    # from_torch names and orders the values as the original module does (the GraphModule holds
    # the same submodules, registered in the order the graph first uses them).
    root = graph_module if _root is None else _root
    builder = _ir.FunctionBuilder()
    cx = Context(builder, options)
    cx.tensors_of = lambda name: _attribute(root, name)
    env = {}
    for node, info in zip(placeholders, input_info):
        env[node] = Var(builder.param(node.target, _input_struct_info(info, node.target)))
    params = collections.OrderedDict()
    for name, p in root.named_parameters():
        if p.requires_grad:
            cx.declare(name, p)
            params[name] = p.detach().cpu().numpy().copy()
    stateful = _stateful_buffers(graph_module)
    for name, b in root.named_buffers():
        if id(b) in stateful:
            cx.declare(name, b, state=True)

    unsupported, unavailable, outputs = [], set(), None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            if not unsupported:
                outputs = torch.fx.node.map_arg(node.args[0], lambda n: env[n])
            continue
        if any(n in unavailable for n in node.all_input_nodes):
            unavailable.add(node)  # reported through the node it depends on
            continue
        try:
            env[node] = _convert(cx, graph_module, node, env, overrides)
        except Unsupported as e:
            unsupported.append((describe_target(node, graph_module), node.name, str(e)))
            unavailable.add(node)
        except _lib.Error as e:
            raise _lib.Error(e.code, f"rxt.frontend: node '{node.name}' ({describe_target(node, graph_module)}): "
                                     f"{e}") from None
    if unsupported:
        raise UnsupportedError(unsupported)
    results = _flatten_outputs(outputs)
    bad = [type(r).__name__ for r in results if not isinstance(r, Var)]
    if bad:
        raise _lib.Error("unimplemented", f"rxt.frontend: the graph returns {', '.join(bad)}: a backbone returns tensors")
    states = cx.states()
    module = builder.finish(function_name, [r.expr for r in results] + [s[2].expr for s in states])
    module.set_attr("param_num", len(params))
    module.set_attr("state_num", len(states))
    return Backbone(module, params, collections.OrderedDict((n, v) for n, v, _ in states),
                    [p.target for p in placeholders], len(results))


def _convert(cx, root, node, env, overrides):
    if node.op == "get_attr":
        value = _attribute(root, node.target)
        if isinstance(value, torch.Tensor):
            return cx.value_of(node.target)
        return value
    given = overrides.get(node.op, {})
    key = type(root.get_submodule(node.target)) if node.op == "call_module" else node.target
    if key in given:
        converter, is_module = given[key], node.op == "call_module"
    else:
        converter, is_module = find_converter(node, root)
    if converter is None:
        raise Unsupported("")
    args = torch.fx.node.map_arg(node.args, lambda n: env[n])
    kwargs = torch.fx.node.map_arg(node.kwargs, lambda n: env[n])
    try:
        if is_module:
            return converter(cx, root.get_submodule(node.target), node.target, *args, **kwargs)
        return converter(cx, *args, **kwargs)
    except TypeError as e:  # arguments the converter's signature does not take
        if "argument" in str(e):
            raise Unsupported(f"arguments {str(e).split(': ', 1)[-1]}") from None
        raise


class _Tracer(torch.fx.Tracer):
    """torch.fx's tracer, keeping whole the module types a call_module_map converts."""

    def __init__(self, leaves):
        super().__init__()
        self.leaves = leaves

    def is_leaf_module(self, module, qualified_name):
        return type(module) in self.leaves or super().is_leaf_module(module, qualified_name)


def from_torch(module, example_inputs, training=None, dropout=True, concrete_args=None, **maps):
    """Traces |module| with torch.fx and imports it: the backbone for inputs shaped like
    |example_inputs| (a tensor or a tuple of them), with the module's parameters and buffers as
    its values. The module is not changed. |maps|: from_fx's call_function_map, call_method_map
    and call_module_map; the types of call_module_map are traced as whole modules (leaves)."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    tracer = _Tracer(set(maps.get("call_module_map") or ()))
    try:
        graph = tracer.trace(module, concrete_args=concrete_args)
    except torch.fx.proxy.TraceError as e:
        raise _lib.Error("unimplemented", f"rxt.frontend.from_torch: torch.fx cannot trace {type(module).__name__}: {e} "
                         "(torch.fx follows no Python control flow on tensor values, nor unpacks a tensor's shape: "
                         "give such arguments as concrete_args, trace it yourself and call from_fx, or save it with "
                         "torch.jit.trace and import the .pt file)") from e
    graph_module = torch.fx.GraphModule(tracer.root, graph, type(module).__name__)
    info = [(tuple(x.shape), x.dtype) for x in example_inputs]
    return from_fx(graph_module, info, training=module.training if training is None else training, dropout=dropout,
                   _root=module, **maps)
