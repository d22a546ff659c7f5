"""Generates the CSV Data Set fixtures: python3 gen_csv.py (run in this folder)."""
from jmxgen import *

write("users.csv", "user,pass\nu1,p1\nu2,p2\nu3,p3\n")
write("quoted.csv", 'id;text\n1;"a;b"\n2;"say ""hi"""\n3;"two\nlines"\n')
write("tabs.tsv", "x\ty\n1\t2\n")
write("numbers.csv", "".join(f"{i}\n" for i in range(1, 21)))

write("csv_basics.jmx", plan([
    group("Header", 1, 4, [csv("users.csv", share="shareMode.thread"), debug("h=${user}/${pass}")]),
    group("Eof", 1, 4, [csv("users.csv", names="name, pw", ignore_first=True, recycle=False, share="shareMode.thread"),
                        debug("e=${name}/${pw}")]),
    group("Stop", 1, 6, [csv("users.csv", names="name", ignore_first=True, recycle=False, stop=True, share="shareMode.thread"),
                         debug("s=${name}")]),
    group("Quoted", 1, 3, [csv("quoted.csv", delimiter=";", quoted=True, share="shareMode.thread"), debug("q=${id}|${text}")]),
    group("Tab", 1, 1, [csv("tabs.tsv", names="a,b", delimiter="\\t", share="shareMode.thread"), debug("t=${a}+${b}")]),
    group("Loop", 1, 1, [loop("inner", 2, [csv("users.csv", share="shareMode.thread"), debug("l=${user}")]), debug("after=${user}")]),
]))

def share_group(name):
    return group(name, 2, 2, [
        csv("numbers.csv", names="a", share="shareMode.all"),
        csv("numbers.csv", names="g", share="shareMode.group"),
        csv("numbers.csv", names="t", share="shareMode.thread"),
        csv("numbers.csv", names="k", share="mykey"),
        debug("a=${a} g=${g} t=${t} k=${k}"),
    ])

write("csv_share.jmx", plan([share_group("G1"), share_group("G2")]).replace(
    '<boolProp name="TestPlan.serialize_threadgroups">true', '<boolProp name="TestPlan.serialize_threadgroups">false'))

write("csv_missing.jmx", plan([group("G", 1, 1, [csv("no-such-file.csv", names="a"), debug("a=${a}")])]))

# bench/csv_rows.sh: property-driven users and loops over a large file named by -Jcsv.
write("../bench/csv_rows.jmx", plan([el("ThreadGroup", "ThreadGroupGui", "Readers", [
    s("ThreadGroup.num_threads", "${__P(threads,1000)}"), s("ThreadGroup.ramp_time", 0),
    s("ThreadGroup.on_sample_error", "continue"),
    '<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">'
    + s("LoopController.loops", "${__P(loops,100)}") + b("LoopController.continue_forever", False) + '</elementProp>',
    b("ThreadGroup.scheduler", False)], [
    csv("${__P(csv,rows.csv)}", names="id,name", share="shareMode.all"),
    debug("row ${id}"),
])]))
