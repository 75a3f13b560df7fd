"""hipport: port CUDA C++ code bases to HIP for AMD Instinct GPUs."""

__version__ = "0.1.0"
