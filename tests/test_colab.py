"""The Colab branch of the setup cell, run for real with stand-ins: a fake `google.colab` module,
a local bare clone as REPO_URL (file://, offline), a wheel folder as the package index, a
temporary folder as Drive. Also the install plan (what Colab lacks) and the package's extras."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from shared import build, colab

FAKE_COLAB = {
    "google/__init__.py": "",
    "google/colab/__init__.py": "",
    # the stand-in mount makes the folder Colab would show under the mount point
    "google/colab/drive.py": "import os\n\ndef mount(path):\n    os.makedirs(os.path.join(path, 'MyDrive'), "
                             "exist_ok=True)\n    print('mounted (stand-in) at', path)\n",
}

# an installed `shared` (the editable install of the checkout running the tests) must not be found:
# the cell is to find the suite the way a fresh Colab runtime would, by cloning it
HIDE_INSTALLED = """\
import sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, '__module__', '').startswith('__editable__')]
sys.path[:] = [p for p in sys.path if not os.path.isfile(os.path.join(p or '.', 'shared', 'bench.py'))]
import importlib.util
assert importlib.util.find_spec('shared') is None, 'the suite is still importable'
"""


def _wheel(folder: Path, name: str = "arc_fake_dep", version: str = "1.0") -> None:
    """A minimal pure-Python wheel, so pip installs something with no index and no build step."""
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "VALUE = 42\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist}/RECORD"] = "".join(f"{f},,\n" for f in [*files, f"{dist}/RECORD"])
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as z:
        for f, text in files.items():
            z.writestr(f, text)


@pytest.fixture(scope="module")
def bare_repo(tmp_path_factory) -> Path:
    """A bare git repository of this working tree (uncommitted changes included), whose pyproject
    asks for one package this machine lacks (arc-fake-dep, served from a wheel folder)."""
    tmp = tmp_path_factory.mktemp("suite")
    src = tmp / "src"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=build.REPO, check=True,
                            capture_output=True, text=True).stdout.split("\n")
    for rel in filter(None, listed):
        if (build.REPO / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(build.REPO / rel, src / rel)
    pyproject = src / "pyproject.toml"
    text = pyproject.read_text().replace("dependencies = [\n", 'dependencies = [\n    "arc-fake-dep>=1.0",\n', 1)
    pyproject.write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=src, check=True)
    subprocess.run([*git, "add", "-A"], cwd=src, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "suite"], cwd=src, check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(tmp / "suite.git")], check=True)
    return tmp / "suite.git"


def _offline_pip(tmp: Path) -> dict:
    """Environment for pip to install from a local wheel folder into tmp/site, never the index."""
    wheels = tmp / "wheels"
    wheels.mkdir(exist_ok=True)
    _wheel(wheels)
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_TARGET": str(tmp / "site")}


def _run_setup_cell(tmp: Path, params: dict, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    fake = tmp / "fake_modules"
    for rel, text in FAKE_COLAB.items():
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text(text)
    (tmp / "work").mkdir(exist_ok=True)
    (tmp / "home").mkdir(exist_ok=True)
    script = "\n".join([
        "import os", HIDE_INSTALLED, f"sys.path.insert(0, {str(fake)!r})", "import google.colab",
        *(f"{k} = {v!r}" for k, v in params.items()),
        build.SETUP_CELL,
        "import shared",
        "print('RESULT ' + json.dumps({'shared': shared.__file__, 'OUT': OUT, 'cwd': os.getcwd()}))",
    ])
    (tmp / "cell.py").write_text("import json\n" + script)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_TARGET")}
    env.update({"HOME": str(tmp / "home"), **(env_extra or {})})
    return subprocess.run([sys.executable, str(tmp / "cell.py")], cwd=tmp / "work", env=env, capture_output=True,
                          text=True, timeout=300)


def _result(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def test_setup_cell_on_colab_clones_installs_what_is_missing_imports_and_keeps_out_on_drive(tmp_path, bare_repo):
    site = tmp_path / "site"
    params = {"PROFILE": "smoke", "OUT": "outputs/01_baseline", "REPO_URL": bare_repo.as_uri(), "SUITE_DIR": "",
              "DRIVE": True}
    env = {**_offline_pip(tmp_path), "ARC_DRIVE_MOUNT": str(tmp_path / "drive")}
    proc = _run_setup_cell(tmp_path, params, env)
    got = _result(proc)
    clone = tmp_path / "home" / "arc-suite"
    assert (clone / "shared" / "bench.py").is_file() and (clone / ".git").is_dir()
    assert got["shared"] == str(clone / "shared" / "__init__.py")  # the clone is what was imported
    assert got["cwd"] == str(clone)
    assert f"suite: a clone of {bare_repo.as_uri()}" in proc.stdout
    # only the missing package was installed; torch and the rest are present and left alone
    assert "installing what this runtime lacks: arc-fake-dep>=1.0\n" in proc.stdout
    assert (site / "arc_fake_dep" / "__init__.py").is_file()
    assert got["OUT"] == str(tmp_path / "drive" / "MyDrive" / "arc-suite" / "outputs" / "01_baseline")
    assert Path(got["OUT"]).is_dir()

    # a second run (a rerun after a disconnect, with the VM still up) reuses the clone
    again = _run_setup_cell(tmp_path, params, env)
    assert "suite: the clone made earlier" in again.stdout and _result(again)["OUT"] == got["OUT"]


def test_setup_cell_without_repo_url_stops_with_one_message(tmp_path):
    proc = _run_setup_cell(tmp_path, {"PROFILE": "smoke", "OUT": "outputs/x", "REPO_URL": "", "SUITE_DIR": "",
                                      "DRIVE": False})
    assert proc.returncode != 0
    assert "RuntimeError: the suite is not here and REPO_URL is empty" in proc.stderr
    assert "pyproject.toml, [tool.arc-suite] repo-url" in proc.stderr
    assert not (tmp_path / "home" / "arc-suite").exists()


def test_setup_cell_uses_the_folder_suite_dir_names(tmp_path, bare_repo):
    folder = tmp_path / "my_copy"
    subprocess.run(["git", "clone", "-q", str(bare_repo), str(folder)], check=True)
    proc = _run_setup_cell(tmp_path, {"PROFILE": "smoke", "OUT": "outputs/x", "REPO_URL": "",
                                      "SUITE_DIR": str(folder), "DRIVE": False},
                           _offline_pip(tmp_path))
    got = _result(proc)
    assert got["shared"] == str(folder / "shared" / "__init__.py") and "suite: SUITE_DIR" in proc.stdout
    bad = _run_setup_cell(tmp_path, {"PROFILE": "smoke", "OUT": "o", "REPO_URL": "", "SUITE_DIR": str(tmp_path),
                                     "DRIVE": False})
    assert bad.returncode != 0 and "holds no copy of the suite" in bad.stderr


def test_drive_off_colab_is_refused_with_the_reason(tmp_path):
    script = "\n".join(["import sys", 'PROFILE = "smoke"', 'OUT = "o"', 'REPO_URL = ""', 'SUITE_DIR = ""',
                        "DRIVE = True", build.SETUP_CELL])
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "DRIVE = True needs Colab" in proc.stderr


def _reqs(*lines):
    return [Requirement(x) for x in lines]


def test_install_plan_never_touches_torch_or_jupyter_and_takes_bitsandbytes_only_for_4_bit():
    reqs = _reqs("torch>=2.4", "ipykernel>=6.29", "transformers>=5.0,<6", "peft>=0.17", "bitsandbytes>=0.45",
                 "numpy>=1.26")
    have = {"torch": "2.8.0", "transformers": "4.57.1", "numpy": "2.0.2", "ipykernel": "5.0"}.get
    assert colab.missing(reqs, four_bit=False, version_of=have) == ["transformers<6,>=5.0", "peft>=0.17"]
    assert colab.missing(reqs, four_bit=True, version_of=have) == ["transformers<6,>=5.0", "peft>=0.17",
                                                                    "bitsandbytes>=0.45"]
    assert colab.missing(_reqs("torch>=99"), version_of=lambda _: None) == []  # even when absent or too old


def test_install_missing_runs_pip_once_with_only_what_lacks(tmp_path, monkeypatch):
    calls = []
    real = colab.installed_version  # this machine has every requirement: make one missing
    monkeypatch.setattr(colab, "installed_version", lambda name: None if name == "trl" else real(name))
    todo = colab.install_missing("smoke", build.REPO, run=calls.append)
    assert todo == ["trl>=1.0"] and calls == [[sys.executable, "-m", "pip", "install", "-q", "trl>=1.0"]]


def test_package_installs_the_cpu_solver_without_torch_and_names_its_extras():
    project = tomllib.loads((build.REPO / "pyproject.toml").read_text())["project"]
    base = {Requirement(x).name for x in project["dependencies"]}
    assert not base & {"torch", "transformers", "peft", "trl", "accelerate", "bitsandbytes"}
    extras = {k: {Requirement(x).name for x in v} for k, v in project["optional-dependencies"].items()}
    assert {"torch", "transformers", "peft", "trl", "accelerate", "bitsandbytes"} <= extras["models"]
    assert {"pytest", "ruff", "playwright", "hypothesis"} <= extras["dev"]
    assert "papermill" in extras["notebooks"] and "arc-suite" in extras["dev"]  # dev pulls the other extras in
    names = {Requirement(str(r)).name for r in colab.suite_requirements(build.REPO)}
    assert "torch" in names and "pytest" not in names and "papermill" not in names


def test_the_dsl_solver_imports_without_torch():
    code = ("import sys; from shared import bench; from shared.solvers import make_solver; make_solver('dsl'); "
            "import shared.colab, shared.web; print(sorted(m for m in ('torch', 'transformers', 'pandas') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=build.REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_quick_start_has_a_colab_badge_for_every_notebook_of_a_github_fork():
    text = build.quick_start_text("https://github.com/someone/arc-fork.git")
    for _, _, target in build.targets():
        link = f"https://colab.research.google.com/github/someone/arc-fork/blob/main/notebooks/{target.name}"
        assert f"[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]({link})" in text
    assert build.colab_link("git@github.com:a/b.git", "x.ipynb").endswith("/github/a/b/blob/main/notebooks/x.ipynb")
    assert build.colab_link("https://gitlab.com/a/b", "x.ipynb") is None
    plain = build.quick_start_text("")
    assert all(f"(notebooks/{t.name}) (upload)" in plain for _, _, t in build.targets())


def test_repo_url_is_written_into_every_setup_notebook_from_pyproject(monkeypatch):
    monkeypatch.setattr(build, "repo_url", lambda: "https://example.org/fork.git")
    for b, v, _ in build.targets():
        cells = json.loads(build.notebook_text(b, v))["cells"]
        params = "".join(next(c for c in cells if "parameters" in c["metadata"].get("tags", []))["source"])
        if any(build.INLINE_MARKER in "".join(c["source"]) or "LIBRARY = {" in "".join(c["source"]) for c in cells):
            assert "REPO_URL" not in params  # Kaggle: the library is inlined, nothing to clone
        else:
            assert params.count("REPO_URL = ") == 1 and "REPO_URL = 'https://example.org/fork.git'" in params
            assert "SUITE_DIR = " in params and "DRIVE = False" in params
