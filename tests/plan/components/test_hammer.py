"""hammer's request timeout."""

from __future__ import annotations

from foretune.plan.components import hammer
from tests.plan.components.helpers import run


def test_no_timeout_for_large_collections() -> None:
    # the 6.2 brief: ":request_timeout: -1 #seconds"
    t = run(hammer.plan, "satellite", "6.15", hosts=12000)["hammer.request_timeout"]
    assert t.foretune.value == -1
    assert t.fixes[0].target == "/etc/hammer/cli.modules.d/foreman.yml" and t.fixes[0].value == ":request_timeout: -1"


def test_default_kept_at_the_default_profile_s_scale_and_not_on_capsules() -> None:
    t = run(hammer.plan, "satellite", "6.15", hosts=5000)["hammer.request_timeout"]
    assert t.foretune.value == t.installer.value and not t.differs
    assert run(hammer.plan, "satellite", "6.15", role="capsule") == {}
