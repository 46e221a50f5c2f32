"""The HTML pages: home, the lab and its embed, lessons, calculators, the quiz."""
