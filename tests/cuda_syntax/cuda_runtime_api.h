// Same stand-in as cuda_runtime.h (tests/cuda_syntax/check.sh).
#pragma once
#include "cuda_runtime.h"
