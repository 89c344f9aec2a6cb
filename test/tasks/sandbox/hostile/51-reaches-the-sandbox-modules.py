# Hostile candidate: reaches the sandbox's own modules. It imports the worker, checker and splitter
# from their directory, reads the policy's file, then rewrites the policy module loaded in its own
# process and tries a forbidden open. The base wrong add()/main() come first (hostile.test.ts).
import sys
def _escaped():
    wins = 0
    for name in ('sandbox_worker', 'sandbox_checker', 'test_splitter'):
        try:
            __import__(name)
            wins += 1
        except BaseException:
            pass
    for path in ('/opt/evochamber/sandbox_policy.py', '{{SANDBOX}}/sandbox_policy.py'):
        try:
            wins += len(open(path).read()) > 0
        except BaseException:
            pass
    policy = sys.modules.get('sandbox_policy')
    if policy is not None:
        for k in list(vars(policy)):
            if k.isupper():
                setattr(policy, k, ())
        policy.make_guard = lambda *_a: (lambda *_b: None)
        policy.confine = lambda *_a: None
    try:
        wins += len(open('{{PROJECT}}').read()) > 0
    except BaseException:
        pass
    return wins > 0

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
