"""Finding the system's Chromium and the command line we start it with.

pressmark never downloads a browser. The search order is ``PRESSMARK_CHROMIUM``,
then ``chromium``/``chromium-browser``/``google-chrome`` on ``PATH``, then a build
Playwright already manages (``~/.cache/ms-playwright``), if any.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from pressmark.render._errors import BROWSER_NOT_FOUND, RenderError

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Debian and Ubuntu install a shell wrapper on PATH that sources /etc/chromium.d
# (API keys, remote extensions, GPU flags). We want the bare binary it execs.
_WRAPPED = {
    "chromium": ("/usr/lib/chromium/chromium",),
    "chromium-browser": (
        "/usr/lib/chromium-browser/chromium-browser",
        "/usr/lib/chromium/chromium",
    ),
}

INSTALL_HINT = (
    "no Chromium found: install one (Debian/Ubuntu: `apt-get install chromium`), "
    "or set PRESSMARK_CHROMIUM=/path/to/chrome; pressmark never downloads a browser"
)


def _is_script(path: str) -> bool:
    try:
        with Path(path).open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _unwrap(name: str, path: str) -> str:
    if _is_script(path):
        for candidate in _WRAPPED.get(name, ()):
            if os.access(candidate, os.X_OK):
                return candidate
    return path


def _playwright_managed(browsers_path: str | None, home: str | None) -> str | None:
    roots = []
    if browsers_path:
        roots.append(Path(browsers_path))
    if home:
        roots.append(Path(home) / ".cache" / "ms-playwright")
    for root in roots:
        if not root.is_dir():
            continue
        for candidate in sorted(root.glob("chromium-*/chrome-linux*/chrome"), reverse=True):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def find_chromium(environ: Mapping[str, str] | None = None) -> str:
    """Return the path of a Chromium executable, or raise ``RenderError(browser-not-found)``."""
    env = os.environ if environ is None else environ
    explicit = env.get("PRESSMARK_CHROMIUM")
    if explicit:
        if os.access(explicit, os.X_OK) and not Path(explicit).is_dir():
            return explicit
        raise RenderError(
            f"PRESSMARK_CHROMIUM={explicit!r} is not an executable file", code=BROWSER_NOT_FOUND
        )
    search_path = env.get("PATH", os.defpath)
    for name in _NAMES:
        found = shutil.which(name, path=search_path)
        if found:
            return _unwrap(name, found)
    managed = _playwright_managed(env.get("PLAYWRIGHT_BROWSERS_PATH"), env.get("HOME"))
    if managed:
        return managed
    raise RenderError(INSTALL_HINT, code=BROWSER_NOT_FOUND)


# Ours, then the ones Playwright disables by default (its own flag would be overridden).
DISABLED_FEATURES = (
    "DnsOverHttps", "NetworkPrediction", "MediaRouter", "OptimizationHints",
    "OptimizationGuideModelDownloading", "OptimizationHintsFetching", "Translate",
    "AutofillServerCommunication", "InterestFeedContentSuggestions",
    "CertificateTransparencyComponentUpdater", "NetworkTimeServiceQuerying",
    "DialMediaRouteProvider", "PrivacySandboxSettings4",
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "AimEnabled",
    "PreconnectToSearch",
    # The spare renderer is started ahead for the browser context that navigated last;
    # with a context per render slot the next navigation is nearly always in another
    # one, so the spare is thrown away and a new one started: about one renderer
    # process (tens of ms of CPU) per page, where a reused tab needs none.
    "SpareRendererForSitePerProcess",
    # Each browser context is a window in headless mode, and each window preloaded its
    # omnibox pop-ups (two WebUI pages, one renderer process of ~35 MB): with a context
    # per render slot, half the renderer processes were pop-ups nobody can open.
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup",
)


def chromium_args(*, js_heap_mb: int, block_images: bool, block_fonts: bool) -> list[str]:
    """Switches that keep the browser quiet, deterministic and inside the egress proxy.

    The proxy itself (``--proxy-server`` and ``--proxy-bypass-list=<-loopback>``) is
    added by Playwright from the launch ``proxy`` option.

    Chromium's own background traffic never reaches the proxy: some components
    register for updates even with ``--disable-component-update``, so the updater's
    server is ``about:blank`` (nothing is sent); the account service's "list
    accounts" call at startup goes to an unsafe port (refused inside the browser,
    before any connection). A page's own requests to Google hosts are unaffected.
    ``--disable-features`` is given once (Chromium keeps only the last one), so it
    repeats the features Playwright disables.
    """
    args = [
        "--no-sandbox",  # containers run as root; isolation comes from the proxy and contexts
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--no-pings",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-breakpad",
        "--metrics-recording-only",
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        # Chromium resolves nothing itself: every request goes to the proxy by IP.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--disable-features=" + ",".join(DISABLED_FEATURES),
        "--component-updater=url-source=about:blank",
        "--gaia-url=http://gaia.invalid:1/",
        "--google-apis-url=http://google-apis.invalid:1/",
        "--mute-audio",
        "--hide-scrollbars",
        "--font-render-hinting=none",
        f"--js-flags=--max-old-space-size={js_heap_mb}",
    ]
    if block_images:
        args.append("--blink-settings=imagesEnabled=false")
    if block_fonts:
        args.append("--disable-remote-fonts")
    return args
