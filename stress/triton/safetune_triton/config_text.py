"""Canonical config strings for Triton configs (docs/trace-format.md, "Configs").

Contract:
- config_text(config) names a triton.Config by what it passes to the kernel: its kwargs, plus
  num_warps, num_stages and num_ctas, plus maxnreg and ir_override when they are set. Two configs
  get the same text exactly when they pass the same values.
- The text is canonical: `name=value` pairs sorted by name in byte order, joined by `,`, with no
  empty name or value and no `,`, `=` or whitespace inside one. Values are written with str();
  the characters the format forbids, and `%` itself, are percent-escaped (`%2C` for `,`), so the
  mapping stays one-to-one.
- launch_text(names, kwargs) builds the same text from the keyword arguments of a launch.
- Bad input (a config without the fields above, a kwargs name that clashes with a field) raises
  ValueError naming the config and the field.
"""

FIELDS = ("num_warps", "num_stages", "num_ctas")  # always written
OPTIONAL_FIELDS = ("maxnreg", "ir_override")  # written when not None (Triton 3.6 has both)

# The characters a canonical config may not hold in a name or value (model/config_text.cpp's
# is_space plus the two separators), and '%' so that escaping can be undone.
_ESCAPED = str.maketrans({c: "%{:02X}".format(ord(c)) for c in ",= \t\r\n\f\v%"})


def escape(text):
    """`text` with the forbidden characters percent-escaped; an empty text becomes `''`."""
    return text.translate(_ESCAPED) if text else "''"


def value_text(value):
    return escape(str(value))


def config_fields(config):
    """The name -> value pairs a config passes to the kernel, in no particular order."""
    missing = [name for name in ("kwargs",) + FIELDS if not hasattr(config, name)]
    if missing:
        raise ValueError(
            "config {!r} has no {} (expected a triton.Config)".format(config, ", ".join(missing))
        )
    fields = dict(config.kwargs)
    for name in FIELDS + OPTIONAL_FIELDS:
        value = getattr(config, name, None)
        if value is None:
            continue
        if name in fields:
            raise ValueError(
                "config {!r}: kwargs name {!r} clashes with the Config field of that "
                "name".format(config, name)
            )
        fields[name] = value
    return fields


def text_of_fields(fields):
    pairs = [(escape(str(name)), value_text(value)) for name, value in fields.items()]
    pairs.sort(key=lambda pair: pair[0].encode("utf-8"))  # byte order, as the reader checks
    return ",".join(name + "=" + value for name, value in pairs)


def config_text(config):
    """The canonical string of a triton.Config: `BLOCK=128,num_ctas=1,num_stages=3,num_warps=4`."""
    return text_of_fields(config_fields(config))


def launch_text(names, kwargs):
    """The canonical string of the config a launch used: the values of `names` in its kwargs.

    Names the launch did not pass are left out, so a launch outside the config space shows up in
    the trace as a config that no header lists (and the checker reports it)."""
    fields = {name: kwargs[name] for name in names if name in kwargs}
    return text_of_fields(fields) if fields else UNRECOGNISED_LAUNCH


# What a launch that passed none of the config's names is recorded as: still a canonical config,
# so the trace stays readable, and one that no config space lists.
UNRECOGNISED_LAUNCH = "launch=unrecognised"
