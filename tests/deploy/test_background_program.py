"""make prod's programs per machine role (deploy/prod.py renders supervisord.conf): every app machine runs the
background work (manage.py run_background) beside gunicorn unless PROD_BACKGROUND=off, the proxy never does,
and the web workers always leave that work to it (BACKGROUND_WORK=separate)."""

import argparse
import re

import pytest

from deploy import prod


@pytest.mark.parametrize(
    ("role", "background", "programs"),
    [
        ("all", "on", ["app", "background", "nginx"]),
        ("app", "on", ["app", "background"]),
        ("app", "off", ["app"]),
        ("proxy", "on", ["nginx"]),
    ],
)
def test_each_app_machine_runs_the_background_work_unless_told_not_to(
    tmp_path, monkeypatch, role, background, programs
):
    nginx = prod.nginx_binary(install=False)
    if role != "app" and not nginx:
        pytest.skip("nginx is not installed (the proxy's configuration names its mime.types)")
    for name in [name for name in list(prod.os.environ) if name.startswith("PROD_")]:
        monkeypatch.delenv(name)
    options = dict(listen=None, https_port=None, http_port=None, app_port=None, workers="2")
    args = argparse.Namespace(dir=str(tmp_path / "prod"), role=role, background=background, **options)
    layout = prod.Layout(args)
    prod.write_configs(layout, nginx, "cert.pem", "key.pem")

    conf = layout.supervisor_conf.read_text()
    assert re.findall(r"^\[program:(\w+)\]", conf, re.MULTILINE) == programs
    if "background" in programs:
        command = re.search(r"^\[program:background\]\ncommand=(.+)$", conf, re.MULTILINE).group(1)
        assert command.split()[-2:] == [str(prod.REPO / "manage.py"), "run_background"]
    assert layout.environment()["BACKGROUND_WORK"] == "separate"


def test_prod_background_takes_only_on_or_off(tmp_path, capsys):
    options = dict(listen=None, https_port=None, http_port=None, app_port=None, workers="2", role="app")
    with pytest.raises(SystemExit):
        prod.Layout(argparse.Namespace(dir=str(tmp_path), background="sometimes", **options))
    assert "PROD_BACKGROUND must be on or off, not 'sometimes'" in capsys.readouterr().err
