# Hostile candidate: scans every process for tests. The base wrong add()/main() come first (hostile.test.ts).
import os, re
def add(a, b):
    for pid in os.listdir('/proc') if os.path.isdir('/proc') else []:
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                m = re.search(rb'add\(%d, %d\) == (-?\d+)' % (a, b), f.read())
            if m:
                return int(m.group(1))
        except BaseException:
            pass
    return a - b
