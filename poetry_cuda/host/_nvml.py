"""The NVML worker: ``python -I .../_nvml.py`` prints one JSON object.

This is the only module that imports pynvml, and it only ever runs in a child
process, as a script importing nothing but pynvml and the standard library (see `poetry_cuda.host.nvml`): a driver whose NVML hangs or crashes then
costs one probe, not the command. The output holds raw NVML values; the parent
decodes them.

    {"init_error": {"code": 18, "name": "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "message": "..."}}

or

    {"driver": "550.54.14", "cuda": 12040, "cuda_call": "nvmlSystemGetCudaDriverVersion_v2",
     "gpus": [{"index": 0, "name": "...", "uuid": "GPU-...", "memory_mib": 24564,
               "compute_capability": [8, 9]}],
     "missing": ["<entry points this NVML lacks>"],
     "failures": [{"call": "...", "code": 3, "name": "NVML_ERROR_NOT_SUPPORTED", "message": "..."}]}
"""

from __future__ import annotations

import contextlib
import json
import sys

from typing import Any


FUNCTION_NOT_FOUND = 13


def _error_names(pynvml: Any) -> dict[int, str]:
    return {
        value: name
        for name, value in vars(pynvml).items()
        if name.startswith("NVML_ERROR_") and isinstance(value, int)
    }


class _Collector:
    """Calls NVML, keeping what succeeds and recording why the rest failed."""

    # pynvml is untyped, hence `Any` for it and for its handles.
    def __init__(self, pynvml: Any) -> None:
        self.pynvml = pynvml
        self.names = _error_names(pynvml)
        self.missing: list[str] = []
        self.failures: list[dict[str, Any]] = []

    def error(self, error: Any) -> dict[str, Any]:
        code = error.value
        return {
            "code": code,
            "name": self.names.get(code, f"NVML error {code}"),
            "message": str(error),
        }

    def call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self.pynvml, name)(*args)
        except self.pynvml.NVMLError as error:
            if error.value == FUNCTION_NOT_FOUND:
                if name not in self.missing:
                    self.missing.append(name)
            else:
                self.failures.append({"call": name, **self.error(error)})
            return None

    def cuda(self) -> tuple[int | None, str | None]:
        # _v2 asks libcuda itself; the old call may return a guess when libcuda is absent.
        for name in ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"):
            value = self.call(name)
            if isinstance(value, int) and value > 0:
                return value, name
        return None, None

    def gpu(self, index: int) -> dict[str, Any] | None:
        handle = self.call("nvmlDeviceGetHandleByIndex", index)
        if handle is None:
            return None
        memory = self.call("nvmlDeviceGetMemoryInfo", handle)
        capability = self.call("nvmlDeviceGetCudaComputeCapability", handle)
        return {
            "index": index,
            "name": self.call("nvmlDeviceGetName", handle),
            "uuid": self.call("nvmlDeviceGetUUID", handle),
            "memory_mib": None if memory is None else int(memory.total) // (1024 * 1024),
            "compute_capability": None if capability is None else list(capability),
        }


def collect() -> dict[str, Any]:
    """Everything NVML tells about the driver and the GPUs."""
    try:
        # Imported here, in the child, so that no other process ever loads NVML.
        import pynvml
    except ImportError as error:
        return {"init_error": {"code": None, "name": "ImportError", "message": str(error)}}
    collector = _Collector(pynvml)
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as error:
        return {"init_error": collector.error(error)}
    try:
        cuda, cuda_call = collector.cuda()
        count = collector.call("nvmlDeviceGetCount")
        gpus = [collector.gpu(index) for index in range(count or 0)]
        return {
            "driver": collector.call("nvmlSystemGetDriverVersion"),
            "cuda": cuda,
            "cuda_call": cuda_call,
            "gpus": None if count is None else [gpu for gpu in gpus if gpu is not None],
            "missing": collector.missing,
            "failures": collector.failures,
        }
    finally:
        with contextlib.suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()


def main() -> int:
    try:
        result = collect()
    # Whatever pynvml raises, the parent gets a report instead of a traceback.
    except Exception as error:  # noqa: BLE001
        result = {"worker_error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
