"""Turn HTML into deterministic Markdown, with validation and evidence.

Run: python examples/convert_html.py
"""

from __future__ import annotations

from pressmark.markdown import to_markdown

HTML = """<!doctype html><html lang="en"><head><title>Tide tables</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a></nav>
<div class="cookie-banner">We use cookies. <button>Accept</button></div>
<main><article>
  <h1>Reading a tide table</h1>
  <p>A tide table lists the <em>times</em> and <strong>heights</strong> of high and low water
     for one <a href="/ports/brest">port</a>. Heights are given above chart datum.</p>
  <h2>Columns</h2>
  <ul><li>Time, in local time</li>
      <li>Height, in metres<ul><li>negative means below datum</li></ul></li></ul>
  <pre><code class="language-python">print(height_at("12:00"))</code></pre>
</article></main>
<footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
</body></html>"""

result = to_markdown(HTML, url="https://tides.example/guide")
print(result.markdown)
print("validation passed:", result.validation.passed, list(result.validation.reasons))
print("selected:", result.evidence.to_dict()["main_selectors_used"])
