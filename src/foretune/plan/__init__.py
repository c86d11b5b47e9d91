"""The planner: ``make_plan(PlanInput) -> Plan`` and ``input_from_facts(facts, ...)``."""

from __future__ import annotations

from foretune.plan.facts_input import input_from_facts
from foretune.plan.model import Plan, PlanInput
from foretune.plan.planner import make_plan

__all__ = ["Plan", "PlanInput", "input_from_facts", "make_plan"]
