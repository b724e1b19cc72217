"""Backbone: what the importers return, an rxt.Module (@backbone, param_num, state_num) with the
values of its parameters and states, by name."""
from ..module import Module


class Backbone(Module):
    def __init__(self, module, params, states, input_names, num_outputs):
        """Takes |module|'s handle (a reference of its own). |params| and |states|: name -> NumPy
        array, in the backbone's order."""
        super().__init__(module._lib_retain())
        self.params = params
        self.states = states
        self.input_names = list(input_names)
        self.num_outputs = num_outputs

    @property
    def param_num(self):
        return len(self.params)

    @property
    def state_num(self):
        return len(self.states)

    @property
    def module(self):
        return self

    def __repr__(self):
        return (f"<rxt.frontend.Backbone inputs={self.input_names} params={self.param_num} states={self.state_num} "
                f"outputs={self.num_outputs}>")
