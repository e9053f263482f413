"""Loading published weights into a zoo model: the engine does not download them."""

from .model_store import get_model_file


def load_pretrained(net, name: str, root, ctx) -> None:
    """MXNet's `net.load_parameters(get_model_file(name, root), ctx)`; get_model_file raises
    the engine-gap NotImplementedError (no download)."""
    net.load_parameters(get_model_file(name, root=root), ctx=ctx)
