"""Module paths as Dynamo writes them, as the user names them (capture/node_info.py): the graph
views and the by-module table show `time_proj`, not `__dict__._modules.time_proj` (issue 33, seen
on a diffusers UNet)."""
import pytest

from fusescope_worker.capture.node_info import normalize_module_path


@pytest.mark.parametrize("dynamo, user", [
    ("L['self'].blocks[0].attn", "blocks.0.attn"),
    ("L['self']._modules['blocks']._modules['0']", "blocks.0"),
    ("getattr(L['self'].layers, '0')", "layers.0"),
    ("L['self'].__dict__['_modules']['time_proj']", "time_proj"),
    ("L['self'].down_blocks[1].__dict__['_modules']['resnets'][0].conv1", "down_blocks.1.resnets.0.conv1"),
    ("L['self'].my_modules.proj", "my_modules.proj"),
    ("", ""),
])
def test_dynamo_paths_read_as_the_model_names_them(dynamo, user):
    assert normalize_module_path(dynamo) == user
