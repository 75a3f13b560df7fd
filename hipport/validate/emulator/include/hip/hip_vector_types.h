#pragma once
#include "../hipemu/vector_types.h"
