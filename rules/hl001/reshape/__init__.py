"""Reshape targets as MXNet reshape codes: the shape algebra (codes), symbolic shapes followed
through a function body (flow) and the rewrite of one call (fix)."""
