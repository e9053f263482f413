"""``--fix`` writes never lose anything (issue 14): a concurrent edit survives, the inode's
owner, group, extended attributes and hard links survive, an interrupted write leaves the old
bytes recoverable, and leftovers of a killed run are cleaned up."""

import json
import os
import subprocess
import sys

import pytest

import hybridlint.files as files
import hybridlint.runner as runner
from hybridlint.files import SourceWriteError, read_source, write_source
from cli_support import invoke

HAZARD = (
    "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        return nd.relu(x)\n"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "net.py").write_text(HAZARD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fixed_text():
    return HAZARD.replace("nd.relu", "F.relu")


def test_the_fix_is_what_these_tests_expect(project):
    result = invoke("--fix", "--no-cache", "net.py")
    assert (project / "net.py").read_text() == fixed_text(), result.output


def test_an_edit_made_while_fix_runs_is_kept(project, monkeypatch):
    real_work = runner._work

    def work_while_the_user_edits(path, text, *args):
        out = real_work(path, text, *args)
        with open(path, "a") as handle:  # the user saves in the editor meanwhile
            handle.write("# my edit\n")
        return out

    monkeypatch.setattr(runner, "_work", work_while_the_user_edits)
    result = invoke("--fix", "--no-cache", "--jobs", "1", "net.py")
    assert (project / "net.py").read_text() == HAZARD + "# my edit\n"
    assert result.exit_code == 2
    assert "changed on disk" in result.stdout + result.stderr
    assert "Fixed" not in result.stdout + result.stderr


def test_a_same_size_edit_with_mtime_restored_is_seen(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    src = read_source(str(path))
    before = os.stat(path)
    path.write_text("x = 9\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(SourceWriteError, match="changed on disk"):
        write_source(src, "x = 2\n")
    assert path.read_text() == "x = 9\n"


def test_a_replaced_file_with_the_same_bytes_is_seen(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    src = read_source(str(path))
    (tmp_path / "m.py.new").write_text("x = 1\n")  # an editor's save-by-rename: a new inode
    os.utime(tmp_path / "m.py.new", ns=(src.identity[3], src.identity[3]))
    os.replace(tmp_path / "m.py.new", path)
    with pytest.raises(SourceWriteError):
        write_source(src, "x = 2\n")


def test_hard_links_keep_sharing_the_fixed_content(project):
    os.link(project / "net.py", project / "other_name.py")
    inode = os.stat(project / "net.py").st_ino
    result = invoke("--fix", "--no-cache", "net.py")
    assert result.exit_code == 0, result.output
    assert (project / "other_name.py").read_text() == fixed_text()
    assert os.stat(project / "net.py").st_ino == inode
    assert os.stat(project / "net.py").st_nlink == 2
    assert [n for n in os.listdir(project) if n.startswith(".hybridlint-")] == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_owner_and_group_are_kept_when_root_fixes(project):
    os.chown(project / "net.py", 4321, 4322)
    os.chmod(project / "net.py", 0o640)
    invoke("--fix", "--no-cache", "net.py")
    st = os.stat(project / "net.py")
    assert (project / "net.py").read_text() == fixed_text()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (4321, 4322, 0o640)


def _xattrs_supported(path):
    try:
        os.setxattr(path, "user.hybridlint-test", b"1")
    except (OSError, AttributeError):
        return False
    return True


def test_extended_attributes_are_kept(project):
    if not _xattrs_supported(project / "net.py"):
        pytest.skip("no user extended attributes here")
    os.setxattr(project / "net.py", "user.note", b"keep me")
    invoke("--fix", "--no-cache", "net.py")
    assert (project / "net.py").read_text() == fixed_text()
    assert os.getxattr(project / "net.py", "user.note") == b"keep me"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_an_owner_the_temp_file_cannot_take_means_writing_in_place(project, monkeypatch):
    """Not root and the file is someone else's (group-writable): the replace would make it
    ours, so the inode itself is overwritten. Simulated as root with chown refused."""
    os.chown(project / "net.py", 4321, 4322)

    def refuse(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refuse)
    inode = os.stat(project / "net.py").st_ino
    result = invoke("--fix", "--no-cache", "--jobs", "1", "net.py")
    assert result.exit_code == 0, result.output
    assert (project / "net.py").read_text() == fixed_text()
    st = os.stat(project / "net.py")
    assert (st.st_ino, st.st_uid, st.st_gid) == (inode, 4321, 4322)
    assert [n for n in os.listdir(project) if n.startswith(".hybridlint-")] == []


def test_a_failed_in_place_write_puts_the_old_bytes_back(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    os.link(path, tmp_path / "n.py")
    src = read_source(str(path))
    real = files._overwrite
    calls = []

    def fail_once(target, data):
        calls.append(data)
        if len(calls) == 1:
            with open(target, "r+b") as handle:  # half written, then the disk is full
                handle.write(data[:3])
            raise OSError(28, "No space left on device")
        real(target, data)

    monkeypatch.setattr(files, "_overwrite", fail_once)
    with pytest.raises(OSError, match="No space"):
        write_source(src, "x = 22222\n")
    assert path.read_text() == "x = 1\n"
    assert [n for n in os.listdir(tmp_path) if n.startswith(".hybridlint-")] == []


def dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_temp_file_left_by_a_kill_is_removed_by_the_next_run(project):
    stale = project / f".hybridlint-{dead_pid()}-abc123.tmp"
    stale.write_text("half a file")
    live = project / f".hybridlint-{os.getppid()}-xyz.tmp"  # a running writer's: left alone
    live.write_text("being written")
    (project / "sub").mkdir()
    deeper = project / "sub" / f".hybridlint-{dead_pid()}-q.tmp"
    deeper.write_text("")
    (project / "sub" / "m.py").write_text("x = 1\n")
    invoke("--no-cache", ".")
    assert not stale.exists() and not deeper.exists()
    assert live.exists()


def test_leftovers_are_swept_beside_files_named_on_the_command_line(project):
    # pre-commit names files: their directories are not walked, so they are listed for the sweep
    (project / "sub").mkdir()
    (project / "sub" / "m.py").write_text("x = 1\n")
    stale = project / "sub" / f".hybridlint-{dead_pid()}-n.tmp"
    stale.write_text("")
    elsewhere = project / f".hybridlint-{dead_pid()}-e.tmp"  # no linted file here: kept
    elsewhere.write_text("")
    invoke("--no-cache", os.path.join("sub", "m.py"))
    assert not stale.exists() and elsewhere.exists()


def test_a_backup_left_by_an_interrupted_in_place_write_is_reported(project):
    backup = project / f".hybridlint-{dead_pid()}-k2.net.py.orig"
    backup.write_text(HAZARD)
    result = invoke("--no-cache", "--format", "json", ".")
    assert backup.exists()  # possibly the only copy of the old bytes: never deleted
    assert backup.name in result.stderr and "warning" in result.stderr
    json.loads(result.stdout)


def test_fix_exit_zero_is_2_when_a_file_cannot_be_written(project):
    os.chmod(project / "net.py", 0o444)
    if os.access(project / "net.py", os.W_OK):  # root writes anything: block the directory
        os.chmod(project / "net.py", 0o644)
        pytest.importorskip("fcntl")
        import hybridlint.files as f

        def refuse(*args, **kwargs):
            raise OSError(30, "Read-only file system")

        from unittest import mock

        with mock.patch.object(f, "atomic_write_bytes", refuse):
            result = invoke("--fix", "--exit-zero", "--no-cache", "net.py")
    else:
        result = invoke("--fix", "--exit-zero", "--no-cache", "net.py")
    assert result.exit_code == 2, result.output
    assert "not written" in result.stdout + result.stderr
    assert (project / "net.py").read_text() == HAZARD
