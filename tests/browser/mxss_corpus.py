"""Captures that try to come alive in the workbench's snapshot view (red team #34 item 3).

Our own payloads, one or more per mutation-XSS class DOMPurify's test suite names
(nesting through ``mglyph`` and ``form``, attribute-, removal- and comment-based,
namespace confusion with fake elements, ``noscript``/``xmp``/``noembed``/``noframes``/
``listing``/``plaintext``, templates and declarative shadow roots, ``select``/``option``,
CDATA in foreign content, SVG and MathML integration points), plus the plain ways a
document reaches the network (frames, plugins, refresh, preconnect, SVG references,
``srcset``, ``ping``, presentation ``url()``). Every one names the canary server, so a
connection to it is the proof that something came alive.
"""

from __future__ import annotations

_WRAP = ("<!doctype html><html><head><meta charset=\"utf-8\"><title>{name}</title></head>"
         "<body><h1 id=\"payload\">{name}</h1>{payload}<p id=\"after\">after the payload</p>"
         "</body></html>")


def corpus(canary: str) -> list[tuple[str, str]]:
    """``(name, document)`` pairs; ``canary`` is the origin every payload tries to reach."""
    c = canary.rstrip("/")
    payloads = {
        # nesting: HTML inside MathML text integration points, re-parented on re-parse
        "nesting-table-mglyph": f'<math><mtext><table><mglyph><style><p><iframe src="{c}/n1">',
        "nesting-form": f'<form><math><mtext></form><form><mglyph><style></math>'
                        f'<iframe src="{c}/n2">',
        "nesting-form-p": f'<form><math><mtext></form><form><mglyph><style><p>'
                          f'<iframe src="{c}/n2p">',
        "nesting-form-table": f'<math><mtext><form><table><mglyph><style></form><p>'
                              f'<iframe src="{c}/n2t">',
        "nesting-mglyph-svg": f'<math><mtext><table><mglyph><svg><mtext><style><path id="'
                              f'</style><iframe src=\'{c}/n3\'>">',
        "nesting-form-svg": f'<form><math><mtext></form><form><mglyph><svg><mtext><style>'
                            f'<path id="</style><img src=\'{c}/n4\'>">',
        "nesting-comment-title": f'<math><mtext><table><mglyph><style><!--</style>'
                                 f'<img title="--&gt;&lt;iframe src={c}/n5&gt;">',
        "nesting-headings": f'<math><mtext><h1><a><h6></a></h6><mglyph><svg><mtext><style>'
                            f'<a title="</style><iframe src=\'{c}/n6\'>"></style></h1>',
        # attribute-based: a style element's text in one parse, an attribute in another
        "attribute-svg-p": f'<svg><p><style><g title="</style><iframe src=\'{c}/a1\'>">',
        "attribute-foreignobject": f'<svg><foreignobject><p><style><p title="</style>'
                                   f'<iframe src=\'{c}/a2\'><!--"></style>',
        "attribute-annotation-xml": f'<math><annotation-xml encoding="text/html"><p><style>'
                                    f'<p title="</style><iframe src=\'{c}/a3\'><!--"></style>',
        # removal-based: raw-text containers whose removal or re-parse frees their text
        "removal-xmp": f"<xmp><svg><b><style><b title='</style><iframe src=\"{c}/r1\">'>",
        "removal-noembed": f"<noembed><svg><b><style><b title='</style><iframe src=\"{c}/r2\">'>",
        "removal-noframes": f"<noframes><svg><b><style><b title='</style>"
                            f"<iframe src=\"{c}/r3\">'>",
        # namespace confusion through elements no parser knows
        "fake-element-desc": f'a<svg><xss><desc><noscript>&lt;/noscript>&lt;/desc>&lt;s>'
                             f'&lt;/s>&lt;style>&lt;a title="&lt;/style>&lt;iframe '
                             f'src={c}/f1>">',
        "fake-element-option": f'<math><mtext><option><FAKEFAKE><option></option><mglyph><svg>'
                               f'<mtext><style><a title="</style><iframe src=\'{c}/f2\'>">',
        # foreign content closed early, or raw text containers inside it
        "svg-textarea-title": f'<svg></p><textarea><title><style></textarea>'
                              f'<iframe src="{c}/c1"></style></title></svg>',
        "svg-title-attribute": f'<svg></p><title><a id="</title><iframe src={c}/c2>">'
                               f'</textarea></svg>',
        "math-textarea-mi": f'<math></p><textarea><mi><style></textarea>'
                            f'<iframe src="{c}/c3"></mi></math>',
        "svg-template": f'<svg></p><title><template><style></title><iframe src="{c}/c4">',
        "math-template": f'<math></br><textarea><mtext><template><style></textarea>'
                         f'<iframe src="{c}/c5">',
        "svg-math-embedded": f'<svg></p><math><title><style><iframe src="{c}/c6"></style>'
                             f'</title>',
        "cdata-in-svg": f'<svg><![CDATA[</svg><iframe src="{c}/cd">]]></svg>',
        # comments, noscript, textarea, listing: text in one reading, markup in another
        "noscript-comment": f'<b><noscript><!-- </noscript><iframe src="{c}/s1"> --></noscript>',
        "noscript-attribute": f'<b><noscript><a alt="</noscript><iframe src=\'{c}/s2\'>">'
                              f'</noscript>',
        "textarea-comment": f'<textarea>x</textarea><!--</textarea><iframe src="{c}/t1">-->',
        "comment-bang": f'<!--x--!><iframe src="{c}/t2">-->',
        "listing-entity": f'<listing>&lt;iframe src="{c}/t3"&gt;<t t></listing>',
        "attribute-name-slash": f"<iframe id/=' src={c}/t4 '></iframe>",
        "style-self-closing": f'<b><style><style/><iframe src="{c}/t5">',
        # select, option, templates, shadow roots
        "option-style": f'<option><style></option></select><b><iframe src="{c}/o1"></style>'
                        f'</option>',
        "option-iframe": f'<option><iframe></select><b><iframe src="{c}/o2">',
        "select-template": f'<select><template><iframe src="{c}/o3"></template></select>',
        "nested-templates": f'<template><s><template><s><iframe src="{c}/o4"></s></template>'
                            f'</s></template>',
        "declarative-shadow-root": f'<div><template shadowrootmode="open"><iframe '
                                   f'src="{c}/o5"></iframe></template></div>',
        # the plain ways
        "frames-and-plugins": f'<iframe src="{c}/p1"></iframe><iframe srcdoc="<iframe '
                              f'src=\'{c}/p2\'></iframe>"></iframe><object data="{c}/p3">'
                              f'<iframe src="{c}/p4"></iframe></object><embed src="{c}/p5">'
                              f'<svg><foreignObject><iframe src="{c}/p6"></iframe>'
                              f'</foreignObject></svg>',
        "head-tricks": f'<meta http-equiv="refresh" content="0;url={c}/h1"><link rel="preconnect"'
                       f' href="{c}"><link rel="prefetch" href="{c}/h2"><link rel="stylesheet"'
                       f' href="{c}/h3.css"><base href="{c}/"><a href="relative">relative</a>',
        "svg-references": f'<svg><use href="{c}/u.svg#a"/><image href="{c}/i.png"/><filter '
                          f'id="f"><feImage href="{c}/fe.png"/></filter><a><set '
                          f'attributeName="href" to="{c}/set"/><text>t</text></a><style>'
                          f'@import url({c}/svg-import.css);</style></svg>',
        "presentation-urls": f'<svg width="10" height="10"><rect mask="url({c}/m.svg#m)" '
                             f'filter="url({c}/f.svg#f)" width="10" height="10"/></svg>'
                             f'<div style="background:url({c}/bg.png)">x</div>',
        "sources-and-pings": f'<picture><source srcset="{c}/s.png"><img srcset="{c}/s2.png 2x">'
                             f'</picture><video poster="{c}/v.png" src="{c}/v.mp4"></video>'
                             f'<input type="image" src="{c}/in.png"><a href="{c}/l" '
                             f'ping="{c}/ping">l</a><form><button formaction="{c}/fa">b'
                             f'</button></form>',
        "math-links": f'<math href="{c}/mh"><maction actiontype="statusline" '
                      f'xlink:href="{c}/ma"><mi xlink:href="{c}/mi">x</mi></maction></math>',
        "new-frames": f'<portal src="{c}/portal"></portal><fencedframe src="{c}/ff">'
                      f'</fencedframe>',
    }
    documents = [(name, _WRAP.format(name=name, payload=payload))
                 for name, payload in payloads.items()]
    documents.append(("frameset", f'<!doctype html><html><head><title>frameset</title></head>'
                                  f'<frameset><frame src="{c}/fs"></frameset></html>'))
    documents.append(("plaintext", _WRAP.format(name="plaintext", payload="").replace(
        "<p id=\"after\">", f'<plaintext><iframe src="{c}/pt"><p id="after">')))
    return documents
