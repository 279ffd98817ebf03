// Written for `make cuda-check` (scripts/cuda_check.py), not taken from torch: torch's CUDA build generates
// this header from its CMake settings, and the CPU wheel of torch, whose headers the check compiles the
// CUDA glue against, leaves it out (c10/cuda/CUDAMacros.h includes it). The one setting it carries says
// that c10's CUDA library is a shared library, as in every torch wheel; only Windows builds read it
// (dllexport / dllimport), so on Linux it changes nothing the compiler sees.
#pragma once

#define C10_CUDA_BUILD_SHARED_LIBS
