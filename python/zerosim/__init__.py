"""ZeroSim from Python: the `zerosim` commands in this process, with typed results and pandas DataFrames.

    import zerosim
    r = zerosim.run()                                   # the embedded default scenario
    print(r["ZeRO++"].tflops_per_gpu)                   # typed headline fields; r[...]["cluster.gpus"] any field
    df = zerosim.run("scenarios/zeropp_paper/fig7_1x100g.toml", nodes=48).to_dataframe()
    plan = zerosim.plan("scenarios/procurement/h200_400g_vs_200g.sweep.toml", target_days=60).to_dataframe()

run, compare, sweep, plan and validate take a path or a dict (written as TOML; zerosim._api) and return results
whose records are the commands' JSON lines (docs/report.md, docs/sweeps.md). Bad input raises InputError with
the command's message (file:line:column: [table] key: ...); python/README.md describes the package.
"""
from pkgutil import extend_path

# The built module may sit in another `zerosim` folder on sys.path than these files (a CMake build tree:
# build/python/zerosim/_core*.so; python/CMakeLists.txt): the package spans every such folder.
__path__ = extend_path(__path__, __name__)

from ._api import (InputError, RunError, ZeroSimError, cli, compare, plan, run, sweep,  # noqa: E402
                   validate)
from ._core import version as _version  # noqa: E402
from ._results import (CommandResult, ComparisonResult, PlanResult, RunResult, SweepResult,  # noqa: E402
                       ValidationResult, VariantResult)

__version__ = _version()

__all__ = ["run", "compare", "sweep", "plan", "validate", "cli", "ZeroSimError", "InputError", "RunError",
           "RunResult", "VariantResult", "ComparisonResult", "SweepResult", "PlanResult", "ValidationResult",
           "CommandResult", "__version__"]
