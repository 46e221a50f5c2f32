"""The home page and the health check."""


def test_healthz_reports_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_home_says_what_the_app_is_and_links_to_the_lab(client):
    html = client.get("/").get_data(as_text=True)
    assert "See how GPUs talk to each other" in html
    assert 'href="/lab"' in html


def test_engine_imports_no_web_code():
    import subprocess
    import sys

    code = "import sys, app.collectives; sys.exit('flask' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
