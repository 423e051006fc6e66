"""Sets attributes on a class, and later puts back exactly what the class itself held.

Contract: apply() records, for each name, the class's own attribute (from cls.__dict__, never an
inherited one) or its absence, then sets the new values; restore() puts each recorded attribute
back and deletes the names the class did not have. restore() does nothing when nothing is applied.
The recorder and the fix both patch Triton's Autotuner this way, so that uninstalling either one
leaves the class as it found it.
"""

_ABSENT = object()


class ClassPatch:
    def __init__(self):
        self.cls = None  # the patched class, while applied
        self._saved = {}

    def apply(self, cls, attributes):
        self._saved = {name: cls.__dict__.get(name, _ABSENT) for name in attributes}
        for name, value in attributes.items():
            setattr(cls, name, value)
        self.cls = cls

    def restore(self):
        for name, value in self._saved.items():
            if value is _ABSENT:
                delattr(self.cls, name)
            else:
                setattr(self.cls, name, value)
        self.cls, self._saved = None, {}
