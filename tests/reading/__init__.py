"""Tests of app.reading: what real systems print."""
