"""`--include-quotes`: a quoted CUDA library include becomes <...> (angle, the default) or keeps
its quotes (keep, HIPIFY's way); the config key too."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import hipport


def test_quotes_kept_or_turned_to_angle_brackets(tmp_path: Path) -> None:
    src = tmp_path / "q.cu"
    src.write_text('#include "cublas_v2.h"\n#include "cuda_runtime.h"\n#include <curand.h>\n')
    angle = hipport("port", str(src), "-o", "-", "-q", "--no-cache", cwd=tmp_path).stdout.decode()
    assert angle == "#include <hipblas/hipblas.h>\n#include <hip/hip_runtime.h>\n#include <hiprand/hiprand.h>\n"
    keep = hipport("port", str(src), "-o", "-", "-q", "--no-cache", "--include-quotes", "keep",
                   "--include-layout", "flat", cwd=tmp_path).stdout.decode()
    assert keep == '#include "hipblas.h"\n#include "hip/hip_runtime.h"\n#include <hiprand.h>\n'
    (tmp_path / ".hipport.toml").write_text('include-quotes = "keep"\n')
    cfg = hipport("port", str(src), "-o", "-", "-q", "--no-cache", cwd=tmp_path).stdout.decode()
    assert cfg.startswith('#include "hipblas/hipblas.h"\n')
    (tmp_path / ".hipport.toml").write_text('include-quotes = "double"\n')
    assert hipport("port", str(src), "-o", "-", cwd=tmp_path).returncode == 2
