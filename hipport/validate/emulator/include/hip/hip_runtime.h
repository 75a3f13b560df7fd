// hipport wave emulator: <hip/hip_runtime.h> for running HIP programs on the
// CPU with wavefronts of HIPEMU_WAVE (32 or 64) lanes.  See docs/emulator.md.
#pragma once
#include "../hipemu/config.h"
#include "../hipemu/vector_types.h"
#include "../hipemu/core.h"
#include "../hipemu/device.h"
#include "../hipemu/math.h"
#include "../hipemu/api.h"
#include <cstdio>
