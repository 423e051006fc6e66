"""The identity of the current GPU, as far as a tuning result depends on it (entry.Device).

current_device() asks torch (the device's name and compute capability, the CUDA toolkit torch
was built with), Triton (its version: the compiler of every config) and the NVIDIA kernel
module (/sys/module/nvidia/version: the driver). A part that cannot be read is "unknown", which
still matches only entries written where it was unknown too.
"""

from .entry import Device

DRIVER_VERSION_FILE = "/sys/module/nvidia/version"


def current_device():
    import torch
    import triton

    index = torch.cuda.current_device()
    major, minor = torch.cuda.get_device_capability(index)
    return Device(
        name=torch.cuda.get_device_name(index),
        compute_capability="{}.{}".format(major, minor),
        driver=_driver_version(),
        toolkit="cuda {}, triton {}".format(
            torch.version.cuda, getattr(triton, "__version__", "unknown")
        ),
    )


def _driver_version():
    try:
        with open(DRIVER_VERSION_FILE, encoding="utf-8") as version:
            return version.read().strip() or "unknown"
    except OSError:
        return "unknown"
