"""Generate mqpy's constant modules (CMQC, CMQCFC, CMQXC, CMQZC) from IBM's values.

IBM's numbers are typed exactly once, in ``mq-constants.tsv`` (a transcription of the MQ C
headers cmqc.h, cmqcfc.h, cmqxc.h and cmqzc.h); this generator turns that table into flat
``NAME = value`` modules shaped like pymqi's, so that nothing else in mqpy carries a literal.
The generated modules are committed; the TSV is not part of the repository.

Usage: ``python -m mqpy._constgen /path/to/mq-constants.tsv [output-dir]``
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

#: header in the TSV -> module written into the mqpy package.
MODULES: dict[str, str] = {
    "cmqc": "CMQC",
    "cmqcfc": "CMQCFC",
    "cmqxc": "CMQXC",
    "cmqzc": "CMQZC",
}

#: IBM cmqc.h constants absent from the TSV but needed by MQGMO/MQMD users: the one-character
#: (MQCHAR) group, segment and segmentation states. Kept as ints (ord of the character), as
#: pymqi does, because MQGMO carries them in single-byte fields.
SUPPLEMENT: dict[str, list[tuple[str, int | bytes]]] = {
    "cmqc": [
        ("MQGS_NOT_IN_GROUP", ord(" ")),
        ("MQGS_MSG_IN_GROUP", ord("G")),
        ("MQGS_LAST_MSG_IN_GROUP", ord("L")),
        ("MQSS_NOT_A_SEGMENT", ord(" ")),
        ("MQSS_SEGMENT", ord("S")),
        ("MQSS_LAST_SEGMENT", ord("L")),
        ("MQSEG_INHIBITED", ord(" ")),
        ("MQSEG_ALLOWED", ord("A")),
        # MQCSP versions 1 to 3 (the token of MQ 9.3.4), MQIIH's length
        ("MQCSP_VERSION_1", 1),
        ("MQCSP_VERSION_2", 2),
        ("MQCSP_VERSION_3", 3),
        ("MQCSP_LENGTH_2", 80),
        ("MQCSP_LENGTH_3", 104),
        ("MQCSP_AUTH_ID_TOKEN", 2),
        ("MQIIH_LENGTH_1", 84),
        ("MQRC_CIH_ERROR", 2230),
        # MQSCO versions 6 (key repository password) and 7 (HTTPS key store)
        ("MQSCO_VERSION_6", 6),
        ("MQSCO_VERSION_7", 7),
        ("MQSCO_LENGTH_6", 648),
        ("MQSCO_LENGTH_7", 672),
        # Service Status (a listener's, a service's, the command server's)
        ("MQSVC_STATUS_STOPPED", 0),
        ("MQSVC_STATUS_STARTING", 1),
        ("MQSVC_STATUS_RUNNING", 2),
        ("MQSVC_STATUS_STOPPING", 3),
        ("MQSVC_STATUS_RETRYING", 4),
    ],
}

#: the array forms IBM's headers define beside a character constant (``#define
#: MQMD_STRUC_ID_ARRAY 'M','D',' ',' '``), which pymqi's modules carry as lists of one-byte
#: strings: each ``<name>_ARRAY`` is written after the table as its base constant, a byte a
#: member.
ARRAY_FORMS: dict[str, tuple[str, ...]] = {
    "cmqc": (
        "MQAIR_STRUC_ID", "MQBNO_STRUC_ID", "MQBMHO_STRUC_ID", "MQBO_STRUC_ID", "MQCBC_STRUC_ID",
        "MQCBD_STRUC_ID", "MQCIH_STRUC_ID", "MQCFAC_NONE", "MQCFUNC_MQCONN", "MQCFUNC_MQGET",
        "MQCFUNC_MQINQ", "MQCFUNC_MQOPEN", "MQCFUNC_MQPUT", "MQCFUNC_MQPUT1", "MQCFUNC_NONE",
        "MQCSC_START", "MQCSC_STARTDATA", "MQCSC_TERMINPUT", "MQCSC_NONE", "MQCMHO_STRUC_ID",
        "MQSCO_STRUC_ID", "MQCSP_STRUC_ID", "MQCNO_STRUC_ID", "MQCT_NONE", "MQCONNID_NONE",
        "MQAN_NONE", "MQDH_STRUC_ID", "MQDLH_STRUC_ID", "MQDMHO_STRUC_ID", "MQDMPO_STRUC_ID",
        "MQGMO_STRUC_ID", "MQMTOK_NONE", "MQIIH_STRUC_ID", "MQIAUT_NONE", "MQITII_NONE",
        "MQIMPO_STRUC_ID", "MQMD_STRUC_ID", "MQFMT_NONE", "MQFMT_ADMIN", "MQFMT_AMQP",
        "MQFMT_CHANNEL_COMPLETED", "MQFMT_CICS", "MQFMT_COMMAND_1", "MQFMT_COMMAND_2",
        "MQFMT_DEAD_LETTER_HEADER", "MQFMT_DIST_HEADER", "MQFMT_EMBEDDED_PCF", "MQFMT_EVENT",
        "MQFMT_IMS", "MQFMT_IMS_VAR_STRING", "MQFMT_MD_EXTENSION", "MQFMT_PCF",
        "MQFMT_REF_MSG_HEADER", "MQFMT_RF_HEADER", "MQFMT_RF_HEADER_1", "MQFMT_RF_HEADER_2",
        "MQFMT_STRING", "MQFMT_TRIGGER", "MQFMT_WORK_INFO_HEADER", "MQFMT_XMIT_Q_HEADER",
        "MQMI_NONE", "MQCI_NONE", "MQCI_NEW_SESSION", "MQACT_NONE", "MQGI_NONE", "MQMDE_STRUC_ID",
        "MQMHBO_STRUC_ID", "MQOD_STRUC_ID", "MQPD_STRUC_ID", "MQPMO_STRUC_ID", "MQRFH_STRUC_ID",
        "MQRMH_STRUC_ID", "MQOII_NONE", "MQSD_STRUC_ID", "MQSID_NONE", "MQSMPO_STRUC_ID",
        "MQSRO_STRUC_ID", "MQSTS_STRUC_ID", "MQTM_STRUC_ID", "MQTMC_STRUC_ID", "MQTMC_VERSION_1",
        "MQTMC_VERSION_2", "MQTMC_CURRENT_VERSION", "MQWIH_STRUC_ID", "MQXQH_STRUC_ID",
        "MQCXP_STRUC_ID", "MQDXP_STRUC_ID", "MQPXP_STRUC_ID", "MQWDR_STRUC_ID", "MQWQR_STRUC_ID",
        "MQWXP_STRUC_ID", "MQXUA_NONE",
    ),
    "cmqcfc": (
        "MQEPH_STRUC_ID",
    ),
    "cmqxc": (
        "MQACH_STRUC_ID", "MQAXC_STRUC_ID", "MQAXP_STRUC_ID", "MQXPDA_NONE", "MQCXP_STRUC_ID",
        "MQDXP_STRUC_ID", "MQNXP_STRUC_ID", "MQPBC_STRUC_ID", "MQPSXP_STRUC_ID", "MQSBC_STRUC_ID",
        "MQWDR_STRUC_ID", "MQWQR_STRUC_ID", "MQWXP_STRUC_ID", "MQXEPO_STRUC_ID", "MQXUA_NONE",
    ),
    "cmqzc": (
        "MQZED_STRUC_ID", "MQZAC_STRUC_ID", "MQZAD_STRUC_ID", "MQZFP_STRUC_ID", "MQZIC_STRUC_ID",
    ),
}


def read_table(tsv: Path) -> dict[str, list[tuple[str, int | bytes | list[bytes]]]]:
    """Read the TSV into ``{header: [(name, value), ...]}`` in the table's own order.

    Raises ValueError naming the row for an unknown header or kind, or a name defined twice
    within one header, so a bad table never yields a half-right module.
    """
    out: dict[str, list[tuple[str, int | bytes | list[bytes]]]] = {h: [] for h in MODULES}
    seen: dict[str, set[str]] = {h: set() for h in MODULES}
    with tsv.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        for lineno, row in enumerate(reader, start=2):
            header, name, kind, raw = row["header"], row["name"], row["kind"], row["value"]
            if header not in MODULES:
                raise ValueError(f"{tsv}:{lineno}: unknown header {header!r}")
            if not name.isidentifier():
                raise ValueError(f"{tsv}:{lineno}: bad constant name {name!r}")
            if name in seen[header]:
                raise ValueError(f"{tsv}:{lineno}: {name} defined twice in {header}")
            seen[header].add(name)
            value: int | bytes
            if kind == "int":
                value = int(raw)
            elif kind == "bytes":
                value = bytes.fromhex(raw)
            else:
                raise ValueError(f"{tsv}:{lineno}: unknown kind {kind!r}")
            out[header].append((name, value))
    for header, rows in SUPPLEMENT.items():
        for name, value in rows:
            if name not in seen[header]:
                out[header].append((name, value))
    for header, bases in ARRAY_FORMS.items():
        values = dict(out[header])
        for base in bases:
            if base + "_ARRAY" not in seen[header]:
                value = values[base]
                if not isinstance(value, bytes):
                    raise ValueError(f"{base}_ARRAY: {base} is not a character constant")
                out[header].append((base + "_ARRAY", [bytes([c]) for c in value]))
    return out


def render(header: str, rows: list[tuple[str, int | bytes | list[bytes]]], source: str) -> str:
    """Render one module's text: a generated-file banner, then one assignment per line."""
    lines = [
        f"# {MODULES[header]}: IBM MQ constants from {header}.h, as published for IBM MQ 9.2.5.",
        f"# GENERATED by mqpy._constgen from {source} -- do not edit by hand;",
        "# regenerate with: python -m mqpy._constgen /path/to/mq-constants.tsv",
        f'"""IBM MQ {header}.h constants (generated; {len(rows)} names)."""',
        "",
    ]
    lines.extend(f"{name} = {value!r}" for name, value in rows)
    supplement = SUPPLEMENT.get(header)
    if supplement:
        lines.insert(3, "# Names missing from the table are appended from mqpy._constgen.SUPPLEMENT.")
    if ARRAY_FORMS.get(header):
        lines.insert(3, "# The *_ARRAY forms are appended from mqpy._constgen.ARRAY_FORMS.")
    return "\n".join(lines) + "\n"


def generate(tsv: Path, outdir: Path) -> list[Path]:
    """Write every constant module into ``outdir`` and return the paths written."""
    table = read_table(tsv)
    written = []
    for header, module in MODULES.items():
        path = outdir / f"{module}.py"
        path.write_text(render(header, table[header], tsv.name), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = Path(args[1]) if len(args) == 2 else Path(__file__).resolve().parent
    for path in generate(Path(args[0]), outdir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
