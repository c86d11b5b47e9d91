"""hammer's request timeout."""

from __future__ import annotations

from foretune.changes.build import installer_option
from foretune.plan.components import hammer
from foretune.plan.model import Fix
from tests.plan.components.helpers import run


def test_no_timeout_for_large_collections() -> None:
    # the 6.2 brief: ":request_timeout: -1 #seconds"
    t = run(hammer.plan, "satellite", "6.15", hosts=12000)["hammer.request_timeout"]
    assert t.foretune.value == -1
    assert t.fixes == (Fix("hiera", "foreman::cli::request_timeout", -1),)


def test_default_kept_at_the_default_profile_s_scale_and_not_on_capsules() -> None:
    t = run(hammer.plan, "satellite", "6.15", hosts=5000)["hammer.request_timeout"]
    assert t.foretune.value == t.installer.value and not t.differs
    assert run(hammer.plan, "satellite", "6.15", role="capsule") == {}


def test_the_installer_option_from_foreman_installer_2_4_and_the_file_edit_before() -> None:
    # puppet-foreman 16.1.0 (pinned by foreman-installer 2.4.0; Satellite 6.10 runs 3.0) writes
    # ":request_timeout: <%= @request_timeout %>" into /etc/hammer/cli.modules.d/foreman.yml: --foreman-cli-request-timeout
    t = run(hammer.plan, "satellite", "6.10", hosts=12000)["hammer.request_timeout"]
    assert t.fixes == (Fix("hiera", "foreman::cli::request_timeout", -1),)
    assert installer_option("foreman::cli::request_timeout") == "--foreman-cli-request-timeout"
    assert "/root/.hammer/cli.modules.d/foreman.yml" in t.foretune.reason  # root's once-written 120 wins over /etc
    # 6.9 pins foreman-installer 2.3 (puppet-foreman 16.0.0): the parameter only reaches root's once-written file
    t = run(hammer.plan, "satellite", "6.9", hosts=12000)["hammer.request_timeout"]
    assert t.fixes == (Fix("file", "/etc/hammer/cli.modules.d/foreman.yml", ":request_timeout: -1"),)
    # plain Foreman 2.4 is the first with it, 2.3 is not
    assert run(hammer.plan, "foreman", "2.4", hosts=12000)["hammer.request_timeout"].fixes[0].kind == "hiera"
    assert run(hammer.plan, "foreman", "2.3", hosts=12000)["hammer.request_timeout"].fixes[0].kind == "file"
