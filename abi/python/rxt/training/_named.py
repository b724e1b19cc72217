"""What losses and optimizers share: a plugin's item by name, with options in rxt's attribute
syntax ('reduction="sum"', 'lr=0.01, betas=[0.9, 0.999]')."""


def quoted(text):
    """|text| as a string literal of rxt's attribute syntax."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_option_text(v) for v in value) + "]"
    return repr(float(value)) if isinstance(value, float) else str(value)


class Named:
    """A plugin item by |name| with |options| (None values left out)."""

    def __init__(self, name, **options):
        self.name = name
        self.options = options

    def options_text(self):
        return ", ".join(f"{k}={_option_text(v)}" for k, v in self.options.items() if v is not None)

    def __repr__(self):
        return f"{type(self).__name__}({self.options_text()})"
