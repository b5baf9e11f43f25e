"""The hostile-plugin suite (tests/hostile/run-hostile.py) inside a container
of the console image, started with the console's own flags (the shipped
seccomp profile, no capabilities, no-new-privileges, read-only root) from
`lox --dry-run run`: each attempt's sandbox run is `lockfile sandbox-run
--report` through `docker exec` as the console account, judged exactly as
on the host (the same attempt list, inputs and verdicts).

The bare runs stay on the host (suite `hostile`): under the shipped profile
many attempts fail before any sandbox does, which proves nothing about the
sandbox. What differs inside: `docker exec` passes no descriptor, so the
inherit attempt finds no fd 9 at all; the listeners of the network attempts
are the host's, out of reach of a --network none container (the sandbox
must refuse the socket itself, which is what is judged); and ASLR cannot be
switched off (personality is refused by the profile), so exec-guard-forge
aims at an address it cannot know — it must still be refused.
"""
import importlib.util
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
_spec = importlib.util.spec_from_file_location(
    "run_hostile", os.path.join(ROOT, "tests", "hostile", "run-hostile.py"))
RH = importlib.util.module_from_spec(_spec)
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
_spec.loader.exec_module(RH)
H = RH.H

ATTEMPTS = RH.ATTEMPTS


class HostileBox:
    """A container of the console image, with the console's flags, the
    hostile plugins and a run directory bound at their host paths."""

    def __init__(self, eng, image):
        self.eng = eng
        self.top = H.top_dir("docker-hostile")
        self.name = "lftest-hostile"
        r = eng.lox("--dry-run", "run", "--instance", "hostile", image)
        if r.returncode != 0:
            raise RuntimeError("lox --dry-run run: " + r.stderr.decode())
        argv = shlex.split(r.stdout.decode())
        assert argv[:3] == [argv[0], "run", "-it"], argv
        img = argv.pop()
        argv = ([argv[0], "run", "-d", "--name", self.name] +
                argv[8:] +
                ["--volume", "%s:%s:ro" % (H.HOSTILE, H.HOSTILE),
                 "--volume", "%s:%s" % (self.top, self.top),
                 img, "sleep", "infinity"])
        self.argv = argv
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=eng.env(), timeout=60)
        if p.returncode != 0:
            raise RuntimeError("hostile box: " + p.stderr.decode())

    def run_one(self, a):
        rd = H.RunDir(self.top)
        fx = RH.Fixtures(rd, a.fixtures)
        params = dict(fx.params)
        params["guard_ip"] = 0x555555554000    # unknowable inside: a guess
        params["lock_offset"] = 0x1000000000 + RH.secrets.randbelow(1 << 36)
        params["tasks"] = 300 + RH.secrets.randbelow(180)
        params["growsdown_bytes"] = 256 << 20
        inp = rd.write_input(params)
        input_mode = os.stat(inp).st_mode & 0o7777
        plugin = os.path.join(H.HOSTILE, "h-" + a.name)
        cmd = [self.eng_docker(), "exec", "-i"]
        if a.pty:
            cmd.append("-t")
        cmd += ["--user", "lockfile", "--workdir", rd.path, "--env",
                "LF_HOSTILE_ENV=" + rd.secret_text, self.name,
                "/usr/local/bin/lockfile"] + H.sandbox_cmd(
                    "", plugin, inp, a.sandbox_args)[1:]
        obs_p = RH.start_observer(a, rd, params)
        try:
            if a.pty:
                master, slave = RH.pty.openpty()
                p = subprocess.Popen(cmd, stdin=slave, stdout=subprocess.PIPE,
                                     stderr=slave, env=self.eng.env(),
                                     start_new_session=True)
                os.close(slave)
                res = RH.finish_pty(p, master)
                # With -t the container's stdout and stderr are one
                # terminal, which reaches the docker client's stdout: the
                # report line and the answer arrive together.
                text = res.out.replace("\r", "").splitlines()
                res = H.Result(res.rc, "\n".join(
                    l for l in text if not l.startswith("{")),
                    res.out.encode(), H.parse_report(res.out.encode()))
            else:
                p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     env=self.eng.env())
                res = H.finish(p)
        finally:
            obs = RH.stop_observer(obs_p)
        seen, desc = RH.observed(a, rd, fx, obs, params, input_mode)
        fx.close()
        rd.remove()
        return RH.judge_sandbox(a, res, seen, desc)

    def eng_docker(self):
        from dockerenv import DOCKER
        return DOCKER

    def stop(self):
        self.eng.docker("rm", "-f", self.name, check=False, timeout=60)
        H.shutil.rmtree(self.top, ignore_errors=True)
