// hipport wave emulator: hip_bfloat16 (one type with __hip_bfloat16 here; see hip_bf16.h).
#pragma once
#include "hip_bf16.h"
