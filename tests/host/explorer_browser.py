#!/usr/bin/python3
# The browser half of tests/host/explorer.sh: Debian's chromium, driven by
# chromedriver through python3-selenium, loads an explorer page and says
# what a person would see, as JSON on stdout; the suite compares it with
# the results files.  It judges nothing itself.
#
#   explorer_browser.py PAGE SHOTS_DIR CELL STATE SYMBOL
# CELL: a cell to click (1-based); STATE: a state to filter on; SYMBOL: a
# symbol to filter on (after the state filter is cleared).  Screenshots:
# SHOTS_DIR/explorer-1280x800.png, -390x844.png and -dark-1280x800.png.
#
#   explorer_browser.py --table NAME PAGE SHOTS_DIR ROW COLUMN KEY VALUE
# The table view (consumers, repro, a diff): the cell of column COLUMN in
# the row whose keys are ROW (space-separated; "#N": the Nth row shown) to click; the key filter KEY (0..)
# set to VALUE, then the verdict filter set to "no" (where there is one).
# Screenshots SHOTS_DIR/NAME-1280x800.png and NAME-390x844.png.
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def texts(driver, css):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def text(driver, css):
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return found[0].text if found else None


def browser():
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--window-size=1280,800"):
        opts.add_argument(a)
    opts.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def load(driver, page, seen, counted, cells):
    """The page at 1280x800: script errors, the summary's rows, the counts
    shown (by their @counted attribute), the @cells and rows shown."""
    driver.set_window_size(1280, 800)
    driver.get("file://" + page)
    seen["title"] = driver.title
    seen["errors"] = [e["message"] for e in driver.get_log("browser")
                      if e["level"] == "SEVERE"]
    seen["summary"] = [[td.text for td in tr.find_elements(By.CSS_SELECTOR, "td")]
                       for tr in driver.find_elements(By.CSS_SELECTOR, "#summary tr[data-flavour]")]
    seen["counts"] = {td.get_attribute(counted): int(td.text) for td in
                      driver.find_elements(By.CSS_SELECTOR, "#counts td[%s]" % counted)}
    seen["cells_shown"] = len(driver.find_elements(By.CSS_SELECTOR, cells))
    seen["rows_shown"] = len(driver.find_elements(By.CSS_SELECTOR, "#grid tr[data-row]"))


def phone(driver, seen, shot):
    driver.set_window_size(390, 844)
    seen["phone_page_width"] = driver.execute_script(
        "return document.documentElement.scrollWidth")
    seen["phone_viewport"] = driver.execute_script("return window.innerWidth")
    driver.save_screenshot(shot)


def table(name, page, shots, row, col, key, value):
    driver = browser()
    seen = {}
    try:
        load(driver, page, seen, "data-verdict", "#grid td.c")
        if row.startswith("#"):
            tr = driver.find_elements(By.CSS_SELECTOR, "#grid tr[data-row]")[int(row[1:]) - 1]
        else:
            tr = driver.find_element(By.CSS_SELECTOR, '#grid tr[data-row="%s"]' % row)
        target = tr.find_element(By.CSS_SELECTOR, 'td.c[data-col="%s"]' % col)
        seen["cell_text"] = target.text
        target.click()
        seen["detail"] = {dt.text: dd.text for dt, dd in zip(
            driver.find_elements(By.CSS_SELECTOR, "#detail dt"),
            driver.find_elements(By.CSS_SELECTOR, "#detail dd"))}
        seen["detail_title"] = text(driver, "#detail-title")
        seen["detail_reports"] = texts(driver, "#detail-reports li")
        seen["detail_console"] = text(driver, "#detail-console")
        driver.save_screenshot("%s/%s-1280x800.png" % (shots, name))
        Select(driver.find_element(By.ID, "f-key" + key)).select_by_value(value)
        seen["key_rows"] = [[th.text for th in tr.find_elements(By.CSS_SELECTOR, "th")]
                            for tr in driver.find_elements(By.CSS_SELECTOR, "#grid tr[data-row]")]
        Select(driver.find_element(By.ID, "f-key" + key)).select_by_value("")
        if driver.find_elements(By.ID, "f-verdict"):
            Select(driver.find_element(By.ID, "f-verdict")).select_by_value("no")
            seen["mismatch_rows"] = [tr.get_attribute("data-row") for tr in
                                     driver.find_elements(By.CSS_SELECTOR, "#grid tr[data-row]")]
            Select(driver.find_element(By.ID, "f-verdict")).select_by_value("")
        phone(driver, seen, "%s/%s-390x844.png" % (shots, name))
    finally:
        driver.quit()
    json.dump(seen, sys.stdout)


def main():
    if sys.argv[1] == "--table":
        table(*sys.argv[2:9])
        return
    page, shots, cell, state, symbol = sys.argv[1:6]
    driver = browser()
    seen = {}
    try:
        load(driver, page, seen, "data-sym", "#grid .s")
        target = driver.find_element(By.CSS_SELECTOR, '#grid .s[data-cell="%s"]' % cell)
        seen["cell_symbol"] = target.text
        target.click()
        seen["detail"] = {k: text(driver, "#detail-" + k) for k in
                          ("title", "name", "sym", "expected", "reason", "measured",
                           "note", "console")}
        seen["detail"]["reports"] = texts(driver, "#detail-reports li")
        driver.save_screenshot(shots + "/explorer-1280x800.png")
        Select(driver.find_element(By.ID, "f-state")).select_by_value(state)
        seen["state_rows"] = texts(driver, "#grid tr[data-row] th")
        seen["state_cells"] = len(driver.find_elements(By.CSS_SELECTOR, "#grid .s"))
        Select(driver.find_element(By.ID, "f-state")).select_by_value("")
        Select(driver.find_element(By.ID, "f-sym")).select_by_value(symbol)
        seen["symbol_cells"] = [e.get_attribute("data-cell") for e in
                                driver.find_elements(By.CSS_SELECTOR, "#grid .s")]
        Select(driver.find_element(By.ID, "f-sym")).select_by_value("")
        phone(driver, seen, shots + "/explorer-390x844.png")
        driver.set_window_size(1280, 800)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        seen["dark_background"] = driver.execute_script(
            "return getComputedStyle(document.body).backgroundColor")
        driver.save_screenshot(shots + "/explorer-dark-1280x800.png")
    finally:
        driver.quit()
    json.dump(seen, sys.stdout)


main()
