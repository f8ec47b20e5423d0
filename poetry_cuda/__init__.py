"""CUDA-aware dependency resolution for Poetry and uv."""

from __future__ import annotations


__version__ = "0.1.0"
