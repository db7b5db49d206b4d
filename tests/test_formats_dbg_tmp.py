import test_formats as t
from kaladan.rules.notation import position_to_json
def test_x():
    for k, s in t._rare_positions():
        p=position_to_json(s); print(k, p['phase'], p['pending'], p['discard'], p['last_event'], p['deck'], p['final_slot'], p['oracles'], p['turn'], p['slot'], p['setup_queue'])
    assert 0
