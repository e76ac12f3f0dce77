"""
A real browser for the web console's tests, its benchmark and the demo's screenshots.

Debian's headless Chromium (``chromium`` and ``chromium-driver``) driven by selenium, with a
fresh profile of its own that is removed on :meth:`Browser.close`, and no network use of its
own (no sync, updates or background requests). :func:`unavailable_reason` says why there is no
browser here, naming the command that installs one.
"""

import pathlib
import shutil
import tempfile
from typing import Any, Optional

#: The command that installs what these tests need on Debian (as tools/install_browser.sh does).
INSTALL_COMMAND = 'apt-get update && apt-get install -y chromium chromium-driver'
CHROMIUM = ('chromium', 'chromium-browser')
FLAGS = ('--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio')


def chromium_binary() -> Optional[str]:
    """Return the path of Chromium, or None."""
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    return None


def unavailable_reason() -> Optional[str]:
    """Return why no browser can be driven here (with the command that fixes it), or None."""
    missing = [name for name, found in (('chromium', chromium_binary()),
                                        ('chromedriver', shutil.which('chromedriver')))
               if not found]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append('selenium (tools/setup.sh installs it)')
    if missing:
        return (f"no browser to drive: {', '.join(missing)} missing; install with: "
                f"sudo sh -c '{INSTALL_COMMAND}'")
    return None


class Browser:
    """Headless Chromium of ``width`` x ``height`` CSS pixels, driven through ``driver``."""

    def __init__(self, width: int = 1280, height: int = 800, mobile: bool = False) -> None:
        """Start the browser; ``mobile`` emulates a phone's touch screen (and its pixel ratio)."""
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self._profile = tempfile.mkdtemp(prefix='robot_sm-chromium-')
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_binary() or 'chromium'
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f'--user-data-dir={self._profile}')
        options.add_argument(f'--window-size={width},{height}')
        if mobile:
            options.add_experimental_option('mobileEmulation', {
                'deviceMetrics': {'width': width, 'height': height, 'pixelRatio': 2.0,
                                  'touch': True}})
        try:
            self.driver: Any = webdriver.Chrome(
                service=Service(executable_path=shutil.which('chromedriver') or 'chromedriver'),
                options=options)
        except BaseException:
            shutil.rmtree(self._profile, ignore_errors=True)
            raise
        self.driver.set_page_load_timeout(30)
        if not mobile:
            self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        """Give the page exactly ``width`` x ``height`` CSS pixels (a headless window's differ)."""
        self.driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {
            'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})

    def screenshot(self, path: pathlib.Path) -> pathlib.Path:
        """Save what the page shows as a PNG at ``path``; return it."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))
        return path

    def close(self) -> None:
        """Quit the browser and remove its profile."""
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> 'Browser':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
