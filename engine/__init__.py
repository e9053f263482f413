"""The bundled hybrid engine: a small, faithful MXNet 1.x in numpy."""
