"""The pure part of mqpy.services: replaceable inserts, argument splitting, service.env and
the command lines a definition gives (IBM: "Using replaceable inserts on service
definitions", "Additional environment variables")."""

from __future__ import annotations

from mqpy import services
from mqpy.services import Context, parse_service_env, plan_start, plan_stop, split_args, substitute

CTX = Context("QM.ONE", "/data/qmgrs/QM!ONE", "/data", install_path="/opt/mqpy/",
              service_env={"COLOUR": "blue", "QMNAME": "not-this"}, base_env={"PATH": "/bin"})


def test_every_common_insert_is_replaced_and_an_unknown_one_is_left():
    """Given a context, when a string uses IBM's common tokens, then each is replaced: the
    data path ends with a separator as IBM's /var/mqm/ does, the data name is the
    transformed directory name; an unknown +TOKEN+ stays as written."""
    text = ("+MQ_INSTALL_PATH+bin +MQ_DATA_PATH+ +QMNAME+ +MQ_SERVICE_NAME+ "
            "+MQ_Q_MGR_DATA_PATH+ +MQ_Q_MGR_DATA_NAME+ +NOPE+")
    assert substitute(text, CTX.tokens("S1")) == (
        "/opt/mqpy/bin /data/ QM.ONE S1 /data/qmgrs/QM!ONE QM!ONE +NOPE+")


def test_service_env_variables_are_inserts_but_not_over_the_common_ones():
    """Given service.env variables, when used as +NAME+, then their value is inserted; a
    variable named like a common token does not replace it."""
    tokens = CTX.tokens("S1")
    assert substitute("+COLOUR+/+QMNAME+", tokens) == "blue/QM.ONE"


def test_server_pid_is_an_insert_of_the_stop_program_only():
    """Given a server running as pid 4242, when the start and stop programs are planned,
    then +MQ_SERVER_PID+ is replaced in STOPARG (0 with no server) and left in STARTARG."""
    definition = {"STARTCMD": "/bin/start", "STARTARG": "+MQ_SERVER_PID+",
                  "STOPCMD": "/bin/stop", "STOPARG": "-p +MQ_SERVER_PID+ -m +QMNAME+"}
    assert plan_start("S1", definition, CTX).argv == ("/bin/start", "+MQ_SERVER_PID+")
    assert plan_stop("S1", definition, CTX, 4242).argv == ("/bin/stop", "-p", "4242", "-m",
                                                           "QM.ONE")
    assert plan_stop("S1", definition, CTX).argv[2] == "0"


def test_arguments_split_on_blanks_and_quotes_keep_an_argument_whole():
    """Given STARTARG as on a command line, then arguments are blank-separated and a quoted
    one keeps its blanks; an unbalanced quote falls back to plain words."""
    assert split_args("-m QM1  -q 'A B' \"C D\"") == ["-m", "QM1", "-q", "A B", "C D"]
    assert split_args("it's") == ["it's"]
    assert split_args("") == []


def test_a_blank_command_plans_nothing_and_outputs_are_substituted():
    """Given a definition with a blank STOPCMD and STDOUT/STDERR using inserts, then there is
    no stop program, and the start program's output files have their inserts replaced; the
    environment is the queue manager's plus service.env."""
    definition = {"STARTCMD": " +MQ_INSTALL_PATH+bin/runmqtrm ", "STARTARG": "-m +QMNAME+",
                  "STOPCMD": " ", "STDOUT": "+MQ_Q_MGR_DATA_PATH+/+MQ_SERVICE_NAME+.out",
                  "STDERR": ""}
    launch = plan_start("TRM", definition, CTX)
    assert launch is not None
    assert launch.argv == ("/opt/mqpy/bin/runmqtrm", "-m", "QM.ONE")
    assert launch.stdout == "/data/qmgrs/QM!ONE/TRM.out" and launch.stderr == ""
    assert launch.env == {"PATH": "/bin", "COLOUR": "blue", "QMNAME": "not-this"}
    assert plan_stop("TRM", definition, CTX) is None
    assert plan_start("TRM", {"STARTCMD": ""}, CTX) is None


def test_service_env_files_queue_manager_scope_wins(tmp_path):
    """Given a machine-scope and a queue-manager-scope service.env, when read, then both
    apply, the queue manager's taking precedence; comments and blank lines are ignored."""
    qmdir = tmp_path / "qmgrs" / "QM1"
    qmdir.mkdir(parents=True)
    (tmp_path / "service.env").write_text("# machine\nA=1\nB=machine\n\n")
    (qmdir / "service.env").write_text("B=qmgr\nC = 3\nnot a variable\n")
    assert services.read_service_env(str(tmp_path), str(qmdir)) == {
        "A": "1", "B": "qmgr", "C": "3"}
    assert parse_service_env("=x\nD=a=b") == {"D": "a=b"}
    assert services.read_service_env(str(tmp_path / "none"), str(tmp_path / "none")) == {}
