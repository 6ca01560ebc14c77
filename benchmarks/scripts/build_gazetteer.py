"""Writes src/remem/data/gazetteer.tsv, the place names remem.text.answer_types reads: every
country and region CLDR names, and every city CLDR names a time zone after, in English,
Simplified and Traditional Chinese, plus a short hand-written list of large cities that have no
time zone of their own (Beijing, Shenzhen, Boston ...).

Source: the Unicode CLDR data that ships inside the ``babel`` package (Unicode License v3,
https://www.unicode.org/license.txt). babel is needed only to rebuild the file, not to use it:

    /work/main/.venv/bin/python benchmarks/scripts/build_gazetteer.py
"""

from __future__ import annotations

from pathlib import Path

from babel import Locale

OUT = Path(__file__).resolve().parents[2] / "src" / "remem" / "data" / "gazetteer.tsv"
LOCALES = ("en", "zh", "zh_Hant")
# Large cities CLDR names no time zone after (hand-written; English, Simplified, Traditional)
EXTRA = """Beijing 北京 北京
Hong Kong 香港 香港
Macau 澳门 澳門
Shenzhen 深圳 深圳
Guangzhou 广州 廣州
Hangzhou 杭州 杭州
Chengdu 成都 成都
Chongqing 重庆 重慶
Wuhan 武汉 武漢
Nanjing 南京 南京
Xi'an 西安 西安
Suzhou 苏州 蘇州
Tianjin 天津 天津
Xiamen 厦门 廈門
Qingdao 青岛 青島
Kunming 昆明 昆明
Changsha 长沙 長沙
Dalian 大连 大連
Harbin 哈尔滨 哈爾濱
Lhasa 拉萨 拉薩
Guilin 桂林 桂林
Sanya 三亚 三亞
Osaka 大阪 大阪
Kyoto 京都 京都
Busan 釜山 釜山
Boston 波士顿 波士頓
San Francisco 旧金山 舊金山
Seattle 西雅图 西雅圖
Washington 华盛顿 華盛頓
Miami 迈阿密 邁阿密
Austin 奥斯汀 奧斯汀
Atlanta 亚特兰大 亞特蘭大
San Diego 圣地亚哥 聖地亞哥
Las Vegas 拉斯维加斯 拉斯維加斯
Philadelphia 费城 費城
Houston 休斯敦 休斯頓
Dallas 达拉斯 達拉斯
Portland 波特兰 波特蘭
Manchester 曼彻斯特 曼徹斯特
Edinburgh 爱丁堡 愛丁堡
Barcelona 巴塞罗那 巴塞隆納
Munich 慕尼黑 慕尼黑
Milan 米兰 米蘭
Venice 威尼斯 威尼斯
Florence 佛罗伦萨 佛羅倫斯
Kyiv 基辅 基輔
Hawaii 夏威夷 夏威夷
California 加州 加州
Texas 得州 德州
Florida 佛罗里达 佛羅里達
Tibet 西藏 西藏
Yunnan 云南 雲南
Hainan 海南 海南"""


def rows() -> list[tuple[str, ...]]:
    names = {loc: Locale.parse(loc) for loc in LOCALES}
    out: list[tuple[str, ...]] = []
    for code, english in names["en"].territories.items():
        if code.isdigit() or code in {"ZZ", "EU", "EZ", "UN", "QO"}:
            continue  # continents and groups, not places one lives in
        out.append(
            ("country", english, *(names[loc].territories.get(code, "") for loc in LOCALES[1:]))
        )
    zones = sorted(set(names["zh"].time_zones) | set(names["en"].time_zones))
    for zone in zones:
        if "/" not in zone or zone.startswith("Etc/"):
            continue
        data = names["en"].time_zones.get(zone, {})
        english = data.get("city") or zone.rsplit("/", 1)[1].replace("_", " ")
        out.append(
            (
                "city",
                english,
                *(names[loc].time_zones.get(zone, {}).get("city", "") for loc in LOCALES[1:]),
            )
        )
    out += [("city", *line.rsplit(" ", 2)) for line in EXTRA.splitlines()]
    return out


def main() -> None:
    header = (
        "# kind\tEnglish\tSimplified Chinese\tTraditional Chinese\n"
        "# Countries and time-zone cities from Unicode CLDR (via babel; Unicode License v3),\n"
        "# plus hand-written large cities. Rebuilt by benchmarks/scripts/build_gazetteer.py\n"
    )
    seen: set[tuple[str, ...]] = set()
    lines = []
    for row in rows():
        if row not in seen:
            seen.add(row)
            lines.append("\t".join(row))
    OUT.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} places to {OUT}")


if __name__ == "__main__":
    main()
