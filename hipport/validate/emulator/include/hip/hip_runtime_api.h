// hipport wave emulator: host API header (same as hip_runtime.h here).
#pragma once
#include "hip_runtime.h"
