"""MQINQ and MQSET of a connection, on an open queue or the queue manager
(:class:`InquireCalls`)."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.engine import selectors as sel
from mqpy.engine.options import _WARNING, _fail


class InquireCalls:
    """MQINQ and MQSET of a :class:`~mqpy.engine.connection.Connection`."""

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        """MQINQ of one attribute of an open queue."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if not h.options & CMQC.MQOO_INQUIRE:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if selector == CMQC.MQIA_Q_TYPE:
                return sel.queue_type_of(h.obj.objtype)
            if selector == CMQC.MQCA_Q_NAME:
                return sel.to_mqi(selector, "NAME", h.obj.name)
            keyword = sel.QUEUE_SELECTORS.get(selector)
            if keyword is None:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            if keyword in ("CURDEPTH", "IPPROCS", "OPPROCS"):
                if h.obj.objtype != "QLOCAL":
                    raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
                return int(eng.queue_status(h.obj.name)[keyword])  # type: ignore[arg-type]
            if keyword == "DEFTYPE" and h.obj.objtype == "QLOCAL":
                return sel.to_mqi(selector, keyword,
                                  h.obj.attributes.get("DEFTYPE", "PREDEFINED"))
            if keyword == "DISTL" and h.obj.objtype == "QLOCAL":  # older definitions lack it
                return sel.to_mqi(selector, keyword, h.obj.attributes.get("DISTL", "NO"))
            if keyword not in h.obj.attributes:
                raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
            return sel.to_mqi(selector, keyword, h.obj.attributes[keyword])

    def inquire_qmgr(self, selector: int) -> int | bytes:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            keyword = sel.QMGR_SELECTORS.get(selector)
            if keyword is None:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            value = eng.name if keyword == "QMNAME" else eng.catalog.qmgr.get(keyword, "")
            return sel.to_mqi(selector, keyword, value)

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        """MQSET: only the attributes IBM allows (inhibit put/get, trigger attributes)."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_SET)
            if not h.options & CMQC.MQOO_SET:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_SET)
            if selector not in sel.SETTABLE:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            keyword = sel.QUEUE_SELECTORS[selector]
            if keyword not in h.obj.attributes and not (keyword == "DISTL"
                                                         and h.obj.objtype == "QLOCAL"):
                raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)
            try:
                stored = sel.from_mqi(keyword, value)
            except (ValueError, TypeError):
                raise _fail(CMQC.MQRC_CHAR_ATTRS_ERROR if isinstance(value, (bytes, str))
                            else CMQC.MQRC_INT_ATTRS_ARRAY_ERROR) from None
            eng.alter(h.obj.objtype, h.obj.name, {keyword: stored})
