"""The serve settings are written once (issue 23, item 3): ``getaway serve``'s flags, the app
factory and docs/web.md's settings table are made from ``getaway.web.settings.ServeSettings``."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from getaway.text.cli import cli
from getaway.web.settings import ServeSettings, env_names, option_name, with_table

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_settings_table_of_web_md_is_made_from_the_model():
    text = (DOCS / "web.md").read_text(encoding="utf-8")
    assert text == with_table(text), "run: python -m getaway.web.settings docs/web.md"


def test_every_setting_with_a_flag_is_an_option_of_serve():
    params = {p.name: p for p in cli.get_command(click.Context(cli), "serve").params}
    for name, info in ServeSettings.model_fields.items():
        flag = option_name(name)
        if flag is None:
            assert name not in params
            continue
        param = params[name]
        assert flag in param.opts and param.help == info.description
        assert param.envvar == list(env_names(name))
        assert param.default == (() if param.multiple else info.default)


def test_the_environment_names_the_settings_and_the_old_names_still_work(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://old")
    monkeypatch.setenv("GETAWAY_GRACE", "3")
    monkeypatch.setenv("GETAWAY_ALLOWED_ORIGINS", "https://a.example https://b.example")
    settings = ServeSettings()
    assert (settings.redis_url, settings.grace) == ("redis://old", 3.0)
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    monkeypatch.setenv("GETAWAY_REDIS_URL", "redis://new")
    assert ServeSettings().redis_url == "redis://new"
    assert ServeSettings(grace=4).grace == 4.0  # given wins over the environment
    assert ServeSettings.of().grace == 60.0 and ServeSettings.of().redis_url is None  # of: no environment


def test_a_setting_out_of_its_bounds_or_unknown_is_refused():
    for values in ({"grace": -1}, {"port": 70000}, {"reads_per_second": 0}, {"no_such_setting": 1}):
        with pytest.raises(ValidationError):
            ServeSettings.of(**values)


def test_a_flag_out_of_its_bounds_is_refused_naming_it():
    result = CliRunner().invoke(cli, ["serve", "--message-burst", "0"])
    assert result.exit_code == 2 and "--message-burst" in result.output


def test_a_flag_reads_its_environment_variable(monkeypatch):
    monkeypatch.setenv("GETAWAY_SOCKETS_PER_ADDRESS", "0")
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2 and "--sockets-per-address" in result.output


def test_a_setting_without_a_flag_from_the_environment_is_checked_before_anything_is_printed(monkeypatch):
    monkeypatch.setenv("GETAWAY_MAX_BODY", "lots")
    result = CliRunner().invoke(cli, ["serve", "--port", "0"])
    assert result.exit_code == 2 and "GETAWAY_MAX_BODY" in result.output and "Getaway is on" not in result.output


def test_a_redis_url_without_the_cluster_s_secret_is_refused(monkeypatch):
    """Issue 29 item 3: the processes of a cluster seal their messages with a shared secret, so
    one given a Redis URL and no secret (or a short one) does not start; the secret is never shown."""
    monkeypatch.delenv("GETAWAY_CLUSTER_SECRET", raising=False)
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--redis-url", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 2 and "GETAWAY_CLUSTER_SECRET" in result.output, result.output
    assert "Getaway is on" not in result.output
    monkeypatch.setenv("GETAWAY_CLUSTER_SECRET", "too-short")
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--redis-url", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 2 and "GETAWAY_CLUSTER_SECRET" in result.output and "too-short" not in result.output
    with pytest.raises(ValueError, match="cluster_secret"):
        from getaway.web.app import create_app

        create_app("sqlite://", redis_url="redis://127.0.0.1:1/0")
    secret = ServeSettings.of(cluster_secret="a-long-enough-secret-for-tests").cluster_secret
    assert secret is not None and "a-long-enough" not in repr(secret)
