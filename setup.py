"""Build script: compiles the rules engine with mypyc when it can (docs/compiled.md).

Everything else about the package is in pyproject.toml. The compiled modules are ordinary
C extensions placed next to their ``.py`` sources, which stay in the package: Python loads
the extension first, and ``KALADAN_PURE=1`` at run time makes ``kaladan`` load the sources
instead (``kaladan/_pure.py``). The build falls back to the pure-Python package, with a
one-line notice, when there is no C compiler, when mypyc is missing, when
``KALADAN_BUILD_PURE=1`` is set, or when compiling fails. With GCC 10 or later the engine
is linked with link-time optimization, and built again without it if that fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
ENGINE = HERE / "src" / "kaladan" / "rules"
# Kept interpreted, for behaviour the compiled form would change:
# - ``config`` coerces option text to enums in ``__post_init__``; a native class checks field
#   types before that. Configs are read once per game.
# - ``gamelog``'s entry classes are dataclasses with a ``ClassVar`` kind, which mypyc's
#   dataclass support takes for a field (mypyc/mypyc#1122). Entries are built only with a
#   sink.
# - ``native`` gives the compiler ``mypy_extensions``' ``mypyc_attr`` and ``i64``, and the
#   interpreter a decorator that does nothing and ``int``: compiled, the interpreter's half
#   would not exist at run time.
INTERPRETED = {"config.py", "gamelog.py", "native.py"}
# Other modules compiled with the engine (hot loops outside kaladan.rules).
ALSO_COMPILED: list[str] = ["src/kaladan/odds.py", "src/kaladan/bots/greedy.py",
                             "src/kaladan/bots/mcts.py", "src/kaladan/bots/base.py",
                             "src/kaladan/bots/random_bot.py", "src/kaladan/sim/seats.py",
                             "src/kaladan/env/encoding.py", "src/kaladan/env/observation.py",
                             "src/kaladan/env/vector.py", "src/kaladan/expert/figures.py"]


# pip runs this script for metadata too; the notice belongs to the build itself, once.
BUILDING = any(cmd in sys.argv for cmd in ("bdist_wheel", "editable_wheel", "build_ext",
                                           "build", "install", "develop"))


def notice(message: str) -> None:
    if BUILDING:
        print(f"kaladan: {message}; installing the pure-Python engine", file=sys.stderr)


def c_compiler() -> list[str]:
    return (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()


def has_c_compiler() -> bool:
    return shutil.which(c_compiler()[0]) is not None


LINK_TIME_FLAGS = ("-flto=auto", "-fvisibility=hidden", "-fno-plt")


def link_time_flags(cc: list[str]) -> list[str]:
    """Flags for link-time optimization, with GCC 10 or later only (``-flto=auto``); none
    for any other compiler. The group's modules are C files that call each other: with
    hidden symbols nothing can interpose those calls, so at link time GCC inlines them and
    reaches them without the PLT (-3% of instructions per decision), and LTO's parallel
    code generation builds the group faster on 2 cores (docs/compiled.md, "The build").
    Only ``PyInit_*`` is looked up from outside, and ``PyMODINIT_FUNC`` exports it whatever
    the default visibility. ``-fno-plt`` calls libpython through the GOT instead of a PLT
    stub: one jump and its cache line less per call (docs/compiled.md, "The build")."""
    try:
        about = subprocess.run([*cc, "--version"], capture_output=True, text=True,
                               timeout=30).stdout
        version = subprocess.run([*cc, "-dumpfullversion", "-dumpversion"],
                                 capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    major = re.match(r"\d+", version.strip())
    if "Free Software Foundation" not in about or major is None or int(major[0]) < 10:
        return []
    return list(LINK_TIME_FLAGS)


def engine_sources() -> list[str]:
    files = sorted(ENGINE.rglob("*.py"))
    return [str(p.relative_to(HERE)) for p in files if p.name not in INTERPRETED]


def remove_stale_extensions() -> None:
    """An editable install keeps its extensions beside the sources: when this build installs
    the pure engine, the last build's would otherwise still be loaded."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    others = [HERE / Path(source).with_suffix(suffix) for source in ALSO_COMPILED]
    for built in [*ENGINE.rglob(f"*{suffix}"), *others,
                  *ENGINE.parent.parent.glob(f"*__mypyc{suffix}")]:
        built.unlink(missing_ok=True)


def compiled_extensions() -> list[object]:
    extensions = _compiled_extensions()
    if not extensions and BUILDING:
        remove_stale_extensions()
    return extensions


def _compiled_extensions() -> list[object]:
    if os.environ.get("KALADAN_BUILD_PURE"):
        notice("KALADAN_BUILD_PURE is set")
        return []
    if not has_c_compiler():
        notice("no C compiler found")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        notice("mypyc is not available")
        return []
    os.environ.setdefault("MYPY_CACHE_DIR", str(HERE / "build" / "mypy_cache"))
    try:
        # Errors in modules the compiled ones merely import are not the build's concern.
        # Installed packages are not read (--no-site-packages): numpy is absent when pip
        # builds before installing the dependencies, and reading its stubs when present
        # more than doubled the build. Its arrays are then Any, which leaves some of the
        # strict checks' ignores unused and returns Any: `mypy --strict` with numpy is the
        # tests' job, and the compiler treats arrays as plain objects either way.
        extensions = list(mypycify(["--follow-imports=silent", "--ignore-missing-imports",
                                    "--no-site-packages", "--no-warn-unused-ignores",
                                    "--no-warn-return-any",
                                    *engine_sources(), *ALSO_COMPILED],
                                   opt_level="3", multi_file=True,
                                   group_name="kaladan_engine"))
    except (Exception, SystemExit) as exc:  # mypyc refused the sources (it type-checks them)
        notice(f"mypyc could not compile the engine ({exc})")
        return []
    # Only the group's library: the per-module shims are one function each.
    lto = link_time_flags(c_compiler())
    for extension in extensions:
        if extension.name == "kaladan_engine__mypyc":
            extension.extra_compile_args = [*extension.extra_compile_args, *lto]
            extension.extra_link_args = [*extension.extra_link_args, *lto]
    return extensions


class OptionalBuildExt(build_ext):
    """Compiles in parallel, and installs pure Python if compiling fails."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # a compiler error: the sources still work
            for built in self.get_outputs():  # no half-compiled engine
                Path(built).unlink(missing_ok=True)
            remove_stale_extensions()
            notice(f"compiling the engine failed ({exc})")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            if not without_link_time_flags(ext):
                raise
            print(f"kaladan: building with link-time optimization failed ({exc}); "
                  "trying without", file=sys.stderr)
            super().build_extension(ext)


def without_link_time_flags(extension: Extension) -> bool:
    """Drops the link-time flags from an extension (a linker without GCC's LTO plugin,
    say); False if it had none."""
    dropped = False
    for field in ("extra_compile_args", "extra_link_args"):
        flags = getattr(extension, field)
        kept = [flag for flag in flags if flag not in LINK_TIME_FLAGS]
        dropped |= len(kept) < len(flags)
        setattr(extension, field, kept)
    return dropped


# Metadata (pip's first call, ``dist_info``) does not depend on the extensions: compiling is
# done once, for the build itself.
# setuptools runs this file as __main__; tests import it for its helpers.
if __name__ == "__main__":
    setup(ext_modules=compiled_extensions() if BUILDING else [],
          cmdclass={"build_ext": OptionalBuildExt})
