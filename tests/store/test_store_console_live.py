"""A yank recorded by `lockfile plugin verify` while the console runs: the
next plan must answer E_PLUGIN_YANKED, without a file.plugins or a restart
in between ("A withdrawn version does not run" once verify has read the
index). Fails today: the console's plan does not re-read plugins.lock
(src/console/plan_steps.c, plan_open_plugins, needs store_reload); see
docs/marketplace.md, "Known gaps"."""
# test_store_console puts tests/e2e (lfenv) on the path.
from test_store_console import cw, install, plan, plugins_listed  # noqa: F401
from lfenv import check_reply  # noqa: E402
from storeenv import assert_clean_exit, out_text  # noqa: E402


def test_yanked_upstream_then_verify(cw):
    install(cw, "is-json", "is-utf8")
    cw.env.start()
    req, line = plan(cw.env, ["is-json"], approve="y")
    assert check_reply(req, line) == "result"
    cw.mk.publish(4, yanked=["is-json@1.0.0"])
    r = cw.st.run("verify", trust=cw.trust)
    assert_clean_exit(r, 0)
    assert "yanked is-json 1.0.0" in out_text(r)
    # No file.plugins in between: the plan itself must see the record.
    req, line = plan(cw.env, ["is-json"], timeout=10)
    assert line, ("no answer: the running console did not re-read "
                  "plugins.lock and shows the yanked plugin for approval "
                  "(src/console/plan_steps.c plan_open_plugins needs store_reload)")
    assert check_reply(req, line) == "error E_PLUGIN_YANKED"
    assert sorted(plugins_listed(cw.env)) == ["is-utf8"]
    req, line = plan(cw.env, ["is-utf8"], approve="y")
    assert check_reply(req, line) == "result"
