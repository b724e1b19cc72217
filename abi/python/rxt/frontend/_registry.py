"""The converter tables of the torch.fx importer: what each call_function target, call_method
name and call_module type becomes. A converter takes the Context and the node's arguments (in
torch's own signature, so Python binds them as torch would) and returns the node's value; a
module's converter takes the module and its qualified name first."""

FUNCTIONS = {}  # a callable (torch.relu, operator.add...) -> converter(cx, *args, **kwargs)
METHODS = {}    # a Tensor method's name ("view") -> converter(cx, self, *args, **kwargs)
MODULES = {}    # an nn.Module type -> converter(cx, module, qualified_name, *args, **kwargs)


def converts(*functions, methods=()):
    """Registers a converter for call_function targets |functions| and Tensor methods |methods|."""
    def register(converter):
        for f in functions:
            FUNCTIONS[f] = converter
        for m in methods:
            METHODS[m] = converter
        return converter
    return register


def converts_module(*types):
    def register(converter):
        for t in types:
            MODULES[t] = converter
        return converter
    return register


def describe_target(node, root):
    """How a node's target reads in an error: torch.nn.functional.relu, Tensor.view, nn.Conv2d."""
    if node.op == "call_function":
        module = getattr(node.target, "__module__", None) or ""
        name = getattr(node.target, "__name__", str(node.target))
        module = {"_operator": "operator", "torch._C._nn": "torch.nn.functional", "torch._C._VariableFunctions": "torch",
                  "torch._VariableFunctionsClass": "torch", "": "torch"}.get(module, module)
        return f"{module}.{name}"
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op == "call_module":
        kind = type(root.get_submodule(node.target))
        return f"nn.{kind.__name__}" if kind.__module__.startswith("torch.nn") else f"{kind.__module__}.{kind.__name__}"
    return f"{node.op} {node.target}"


def find_converter(node, root):
    """(converter, is_module) for |node|, or None."""
    if node.op == "call_function":
        return FUNCTIONS.get(node.target), False
    if node.op == "call_method":
        return METHODS.get(node.target), False
    if node.op == "call_module":
        # The exact type: a subclass may compute something else (FX traces through it unless
        # a custom tracer keeps it whole).
        return MODULES.get(type(root.get_submodule(node.target))), True
    return None, False
