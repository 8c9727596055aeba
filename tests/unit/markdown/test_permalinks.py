"""Heading permalinks and code-fence languages as documentation generators write them.

Pages in the shapes docsify (hash and history routers), Sphinx (section and signature
header links), MkDocs (``toc.permalink``) and GitHub (README anchors) emit, written here
by hand: headings come out plain, without ``[¶](...)`` or a link to themselves.
"""

from __future__ import annotations

import pytest

from pressmark.markdown import ConversionPolicy, to_markdown

CONVERT = ConversionPolicy(select_main=False)


def md(html: str, url: str | None = "https://docs.example.test/guide/debug") -> str:
    return to_markdown(f"<!doctype html><html><body>{html}</body></html>", url=url,
                       policy=CONVERT).markdown


DOCSIFY_HISTORY = """
<article class="markdown-section" id="main">
<h1 id="debug"><a href="/guide/debug?id=debug" data-id="debug"
class="anchor"><span>Debug</span></a></h1>
<p>Turn on the debug output with an environment variable.</p>
<h2 id="usage"><a href="/guide/debug?id=usage" data-id="usage"
class="anchor"><span>Usage</span></a></h2>
<p>Set <code>DEBUG=*</code> before starting the process.</p>
<h3 id="wildcards-and-namespaces"><a href="/guide/debug?id=wildcards-and-namespaces"
data-id="wildcards-and-namespaces" class="anchor"><span>Wildcards and namespaces</span></a></h3>
<p>A namespace is a name, and a wildcard matches many.</p>
</article>
"""

DOCSIFY_HASH = """
<article class="markdown-section" id="main">
<h2 id="options"><a href="#/guide/debug?id=options" data-id="options"
class="anchor"><span>Options</span></a></h2>
<p>Options come from the environment.</p>
</article>
"""


@pytest.mark.parametrize("url", ["https://docs.example.test/guide/debug", None])
def test_docsify_history_router_headings_are_plain(url: str | None) -> None:
    out = md(DOCSIFY_HISTORY, url)
    assert out.startswith("# Debug\n\n")
    assert "\n## Usage\n" in out
    assert "\n### Wildcards and namespaces\n" in out
    assert "](" not in out.replace("`DEBUG=*`", "")


def test_docsify_hash_router_headings_are_plain() -> None:
    assert md(DOCSIFY_HASH).startswith("## Options\n\n")


def test_a_router_link_to_another_pages_section_stays_a_link() -> None:
    out = md('<h2 id="usage"><a href="/guide/other?id=usage">Usage</a></h2><p>x</p>')
    assert out.startswith("## [Usage](https://docs.example.test/guide/other?id=usage)")
    out = md('<h2 id="usage"><a href="/guide/debug?id=install">Install first</a></h2><p>x</p>')
    assert out.startswith("## [Install first](")


SPHINX = """
<div class="body" role="main">
<section id="built-in-functions">
<h1>Built-in Functions<a class="headerlink" href="#built-in-functions" title="Link to this
heading">¶</a></h1>
<p>The interpreter has a number of functions built into it.</p>
<dl class="py function">
<dt class="sig sig-object py" id="abs">
<span class="sig-name descname"><span class="pre">abs</span></span><span
class="sig-paren">(</span><em class="sig-param"><span class="n"><span
class="pre">x</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#abs"
title="Link to this definition">¶</a></dt>
<dd><p>Return the absolute value of a number.</p></dd>
</dl>
<section id="notes">
<h2>Notes<a class="headerlink" href="https://docs.example.test/guide/debug#notes" title="Link to
this heading">¶</a></h2>
<p>Some notes.</p>
</section>
</section>
</div>
"""


def test_sphinx_header_links_on_headings_and_signatures_go() -> None:
    out = md(SPHINX)
    assert out.startswith("# Built-in Functions\n\n")
    assert "\nabs(*x*)\n: Return the absolute value of a number.\n" in out
    assert "\n## Notes\n" in out
    assert "¶" not in out


MKDOCS = """
<div class="md-content" data-md-component="content"><article class="md-content__inner md-typeset">
<h1 id="configuration">Configuration<a class="headerlink" href="#configuration" title="Permanent
link">&para;</a></h1>
<p>Project settings live in one file.</p>
<h2 id="site_name">site_name<a class="headerlink" href="#site_name" title="Permanent
link">&para;</a></h2>
<p>This is a required setting.</p>
<div class="language-yaml highlight"><pre><span></span><code>site_name: Marks
</code></pre></div>
</article></div>
"""


def test_mkdocs_pilcrows_go_and_the_fence_carries_the_language() -> None:
    out = md(MKDOCS)
    assert out == ("# Configuration\n\nProject settings live in one file.\n\n## site_name\n\n"
                   "This is a required setting.\n\n```yaml\nsite_name: Marks\n```\n")


GITHUB = """
<article class="markdown-body entry-content container-lg" itemprop="text">
<div class="markdown-heading" dir="auto"><h2 tabindex="-1" class="heading-element"
dir="auto">Getting started</h2><a id="user-content-getting-started" class="anchor"
aria-label="Permalink: Getting started" href="#getting-started"><svg class="octicon octicon-link"
viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M7.775
3.275"></path></svg></a></div>
<p dir="auto">Install the package first.</p>
<h3><a id="user-content-older-markup" class="anchor" aria-hidden="true" href="#older-markup"><span
aria-hidden="true" class="octicon octicon-link"></span></a>Older markup</h3>
<p>GitHub's previous README markup put the anchor inside the heading.</p>
<h3><a href="#emoji">🔗</a> Emoji anchors</h3>
<p>Some themes use an emoji.</p>
<div class="highlight highlight-source-python notranslate position-relative overflow-auto"
dir="auto"><pre><span class="pl-k">import</span> <span class="pl-s1">marks</span></pre></div>
</article>
"""


def test_github_anchors_go_and_the_fence_carries_the_language() -> None:
    out = md(GITHUB)
    assert out == ("## Getting started\n\nInstall the package first.\n\n### Older markup\n\n"
                   "GitHub's previous README markup put the anchor inside the heading.\n\n"
                   "### Emoji anchors\n\nSome themes use an emoji.\n\n"
                   "```python\nimport marks\n```\n")


def test_sphinx_caption_permalinks_go() -> None:
    out = md("""
<figure class="align-center" id="id2"><img alt="Lumache" src="/img/lumache.png">
<figcaption><p><span class="caption-text">Freshly created documentation</span><a
class="headerlink" href="#id2" title="Permalink to this image">¶</a></p></figcaption></figure>
<div class="literal-block-wrapper docutils container" id="id3"><div class="code-block-caption">
<span class="caption-text">conf.py</span><a class="headerlink" href="#id3"
title="Link to this code">¶</a></div><div class="highlight-python notranslate">
<div class="highlight"><pre>project = "Lumache"</pre></div></div></div>""")
    assert "¶" not in out
    assert "Freshly created documentation\n" in out
    assert 'conf.py\n\n```python\nproject = "Lumache"\n```' in out


def test_symbol_links_in_running_text_stay() -> None:
    assert md('<p>See <a href="#x">#</a> and <a href="/s">§</a>.</p>') == (
        "See [#](https://docs.example.test/guide/debug#x) and "
        "[§](https://docs.example.test/s).\n")


@pytest.mark.parametrize(("markup", "lang"), [
    ('<pre class="lang-js">x</pre>', "js"),
    ('<pre><code class="hljs language-rust">x</code></pre>', "rust"),
    ('<div class="highlight-python3 notranslate"><div class="highlight"><pre>x</pre></div></div>',
     "python3"),
    ('<div class="highlight-default notranslate"><div class="highlight"><pre>x</pre></div></div>',
     ""),
    ('<article class="lang-de"><div><pre>x</pre></div></article>', ""),  # a human language
])
def test_code_fence_language_from_the_page(markup: str, lang: str) -> None:
    assert md(markup) == f"```{lang}\nx\n```\n"
