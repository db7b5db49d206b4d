"""The build script's choice of compiler flags (setup.py; docs/compiled.md, "The build").

Link-time optimization is asked of GCC 10 or later only; with any other compiler, or none,
the engine builds as before. Fake compilers stand in for the ones this machine lacks.
"""

from __future__ import annotations

import importlib.util
import shutil
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest
from setuptools import Extension

import kaladan

ROOT = Path(__file__).resolve().parents[1]


def _setup_script() -> ModuleType:
    # Imported under its own name, setup.py defines its helpers and does not call setup().
    spec = importlib.util.spec_from_file_location("kaladan_setup_script", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETUP = _setup_script()


def _fake_compiler(tmp_path: Path, about: str, version: str) -> list[str]:
    script = tmp_path / "cc"
    script.write_text("#!/bin/sh\n"
                      f'if [ "$1" = "--version" ]; then printf "%s\\n" "{about}"; '
                      f'else echo "{version}"; fi\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return [str(script)]


GCC_ABOUT = ("gcc (Debian 12.2.0-14) 12.2.0\n"
             "Copyright (C) 2022 Free Software Foundation, Inc.")


@pytest.mark.skipif(sys.platform == "win32", reason="fake compilers are shell scripts")
def test_gcc_10_or_later_gets_link_time_optimization(tmp_path: Path) -> None:
    flags = SETUP.link_time_flags(_fake_compiler(tmp_path, GCC_ABOUT, "12.2.0"))
    assert flags == ["-flto=auto", "-fvisibility=hidden", "-fno-plt"]


@pytest.mark.skipif(sys.platform == "win32", reason="fake compilers are shell scripts")
@pytest.mark.parametrize(("about", "version"), [
    (GCC_ABOUT.replace("12.2.0", "9.4.0"), "9.4.0"),  # no -flto=auto before GCC 10
    ("Apple clang version 15.0.0 (clang-1500.3.9.4)", "4.2.1"),  # clang answers as GCC 4
    ("Ubuntu clang version 16.0.6", "16.0.6"),  # needs LLVM's linker plugin: not asked
])
def test_other_compilers_build_as_before(tmp_path: Path, about: str, version: str) -> None:
    assert SETUP.link_time_flags(_fake_compiler(tmp_path, about, version)) == []


def test_a_missing_compiler_gets_no_flags(tmp_path: Path) -> None:
    assert SETUP.link_time_flags([str(tmp_path / "no-such-cc")]) == []


def test_a_failed_link_time_build_is_retried_without_the_flags() -> None:
    # What OptionalBuildExt.build_extension does before the build falls back to pure Python.
    flags = ["-O3", "-Werror", *SETUP.LINK_TIME_FLAGS]
    extension = Extension("engine", ["engine.c"], extra_compile_args=list(flags),
                          extra_link_args=list(SETUP.LINK_TIME_FLAGS))
    assert SETUP.without_link_time_flags(extension) is True
    assert extension.extra_compile_args == ["-O3", "-Werror"]
    assert extension.extra_link_args == []
    assert SETUP.without_link_time_flags(extension) is False  # nothing left to drop: no retry


def test_the_installed_engine_was_built_with_the_flags_its_compiler_gets() -> None:
    # Hidden symbols leave the group's library exporting only its module init; without
    # the flags it exports every compiled function (2,579 of them on 2026-12-04).
    if kaladan.engine_mode() != "compiled":
        pytest.skip("the compiled engine is not built here")
    if not SETUP.link_time_flags(SETUP.c_compiler()) or shutil.which("nm") is None:
        pytest.skip("this compiler gets no link-time flags")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    library = Path(kaladan.__file__).parents[1] / f"kaladan_engine__mypyc{suffix}"
    exported = subprocess.run(["nm", "-D", "--defined-only", str(library)], check=True,
                              capture_output=True, text=True).stdout.split("\n")
    names = [line.split()[-1] for line in exported if line.strip()]
    assert names == ["PyInit_kaladan_engine__mypyc"], (
        f"the library exports {len(names)} symbols: its build did not use {SETUP.LINK_TIME_FLAGS}"
        " (the build's output says whether link-time optimization failed and was dropped)")
