"""What was detected: the host profile (driver, its CUDA, GPUs, toolkits, cuDNN), the probes
that read it from NVML, /proc and nvidia-smi, and its JSON form for `--target` files."""
