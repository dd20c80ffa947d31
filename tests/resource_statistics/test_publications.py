"""The PCF messages of resource statistics, built from counters (pure): the metadata as
amqsrua and mq_prometheus discover them, and a data publication's values in each data
type's unit."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy.engine.stats import Statistics
from mqpy.monitor import counters, publications, topics
from mqpy.monitor.elements import CLASSES, STATQ
from mqpy.structs.tables import CFH

QM = "QM1"


def _text(value) -> str:  # noqa: ANN001
    return value.decode().rstrip(" \0")


def test_given_the_classes_metadata_when_parsed_then_each_class_names_its_types_topic():
    msg = pcf.parse(publications.metadata(QM)[topics.classes_topic(QM)])
    found = {}
    for group in msg.groups(CMQCFC.MQGACF_MONITOR_CLASS):
        found[_text(group.get(CMQCFC.MQCAMO_MONITOR_CLASS))] = (
            group.get(CMQCFC.MQIAMO_MONITOR_FLAGS), _text(group.get(CMQC.MQCA_TOPIC_STRING)))
    assert set(found) == {"CPU", "DISK", "STATMQI", "STATQ"}
    assert found["STATQ"] == (CMQCFC.MQIAMO_MONITOR_FLAGS_OBJNAME,
                              "$SYS/MQ/INFO/QMGR/QM1/Monitor/METADATA/STATQ/TYPES")


def test_given_a_per_queue_type_when_its_elements_are_read_then_the_data_topic_has_the_object_mark():
    typ = STATQ.type_named("PUT")
    msg = pcf.parse(publications.metadata(QM)[topics.elements_topic(QM, STATQ, typ)])
    assert _text(msg.get(CMQC.MQCA_TOPIC_STRING)) == "$SYS/MQ/INFO/QMGR/QM1/Monitor/STATQ/%s/PUT"
    described = {g.get(CMQCFC.MQIAMO_MONITOR_ELEMENT): _text(g.get(CMQCFC.MQCAMO_MONITOR_DESC))
                 for g in msg.groups(CMQCFC.MQGACF_MONITOR_ELEMENT)}
    assert described[0] == "MQPUT/MQPUT1 count"
    assert described[1] == "MQPUT byte count"


def test_given_every_type_when_listed_then_element_descriptions_are_unique_within_it():
    for cls in CLASSES:
        for typ in cls.types:
            descriptions = [e.description for e in typ.elements]
            assert len(set(descriptions)) == len(descriptions), (cls.name, typ.name)


def test_given_engine_counters_when_two_statistics_intervals_pass_then_nothing_is_lost():
    stats = Statistics()
    counts = counters.IntervalCounts()
    assert counts.take(counters.current_counters(stats)) == {}
    q = stats.queue("APP.Q")
    q.puts[0] += 2
    q.put_bytes[0] += 20
    first = counts.take(counters.current_counters(stats))
    assert first["APP.Q"] == {"puts.np": 2, "put_bytes.np": 20}
    q.puts[1] += 1  # counted, then the statistics interval ends (STATINT)
    stats.take()
    stats.queue("APP.Q").puts[0] += 4
    second = counters.with_totals(counts.take(counters.current_counters(stats))["APP.Q"])
    assert second["puts.all"] == 5
    assert counts.take(counters.current_counters(stats)) == {}


def test_given_a_sample_when_published_then_values_are_in_each_data_types_unit():
    typ = STATQ.type_named("GET")
    sample = {"gets.all": 7, "time_on_q": 0.25, "depth": 3}
    msg = pcf.parse(publications.data_message(QM, STATQ, typ, sample, 10.0, "APP/Q"))
    by_desc = {e.description: msg.get(e.index) for e in typ.elements}
    assert _text(msg.get(CMQC.MQCA_Q_NAME)) == "APP/Q"
    assert msg.get(CMQCFC.MQIAMO_MONITOR_CLASS) == STATQ.index
    assert msg.get(CMQCFC.MQIAMO64_MONITOR_INTERVAL) == 10_000_000
    assert by_desc["MQGET count"] == 7
    assert by_desc["average queue time"] == 250_000
    assert by_desc["Queue depth"] == 3
    assert publications.decoded(typ.elements[14].datatype, 250_000) == 0.25


def test_given_a_queue_name_with_a_slash_when_subscribed_then_the_topic_names_it_with_ampersand():
    typ = STATQ.type_named("PUT")
    topic = topics.data_topic(QM, STATQ, typ, "APP/Q")
    assert topic == "$SYS/MQ/INFO/QMGR/QM1/Monitor/STATQ/APP&Q/PUT"
    assert topics.parse_data_topic(QM, topic) == topics.DataTopic(STATQ, typ, "APP/Q")
    assert topics.parse_data_topic(QM, "$SYS/MQ/INFO/QMGR/QM1/Monitor/STATQ/#") is None


def test_given_a_sample_when_packed_with_struct_then_the_bytes_are_what_mqpy_pcf_builds():
    typ = STATQ.type_named("PUT")
    sample = {"puts.all": 12, "put_bytes.all": 1 << 40}
    fast = publications.data_message(QM, STATQ, typ, sample, 9.5, "APP.Q1")
    params = [pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"QM1"), pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.Q1"),
              pcf.CFIN(CMQCFC.MQIAMO_MONITOR_CLASS, STATQ.index),
              pcf.CFIN(CMQCFC.MQIAMO_MONITOR_TYPE, typ.index),
              pcf.CFIN64(CMQCFC.MQIAMO64_MONITOR_INTERVAL, 9_500_000)]
    params += [pcf.CFIN64(e.index, int(sample.get(e.key, 0))) for e in typ.elements]
    header = CFH(Type=CMQCFC.MQCFT_STATISTICS, Version=CMQCFC.MQCFH_VERSION_3)
    assert fast == pcf.build(pcf.PCFMessage(header, params))


def test_given_a_data_publication_when_read_then_its_queue_class_type_interval_and_values_come_back():
    typ = STATQ.type_named("GET")
    reading = publications.read_data(publications.data_message(
        QM, STATQ, typ, {"gets.all": 4, "depth": 2}, 10.0, "APP/Q"))
    assert (reading.qmgr, reading.queue, reading.cls, reading.typ) == (QM, "APP/Q", 3, typ.index)
    assert reading.interval == 10.0
    assert reading.values[0] == 4 and reading.values[typ.elements[-1].index] == 2


def test_given_bytes_that_are_no_publication_when_read_then_value_error():
    import pytest

    with pytest.raises(ValueError):
        publications.read_data(b"short")
    broken = bytearray(publications.data_message(QM, STATQ, STATQ.types[0], {}, 1.0, "Q"))
    broken[40:44] = (4).to_bytes(4, "little")  # the first parameter's length: too short
    with pytest.raises(ValueError):
        publications.read_data(bytes(broken))
