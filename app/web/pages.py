"""HTML pages that are not a feature of their own: home and the health check."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    """Show what the app is and where to start."""
    return render_template("pages/home.html")


@bp.get("/healthz")
def healthz():
    """Report that the server is up."""
    return jsonify(status="ok")
