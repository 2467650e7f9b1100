"""The IR passes, one module each, run in this order by compiler.driver:

1. const_fold     scalar ops whose operands are all literals become `li`; algebraic identities
                  were already applied while building (builder.binop).
2. alloc_events   event ids for the TQue flags, per HardEvent, avoiding ids the kernel uses by
                  hand and id 6 (reserved for the system); 7 is the last resort, as in TPipe.
3. place_buffers  addresses of TQue/TBuf buffers: aligned, checked against the target's capacity,
                  and skewed by 256 B so the two sources of a binary vector op sit in different
                  UB bank groups (group = address bits [8:5]).
4. insert_sync    (insert_sync=True) set/wait pairs between pipes for LocalTensor code: set after
                  the producer, wait before the consumer, loop-carried pairs pre-set (insert_sync.py).
5. lower          machine form: literals into registers, run-time config registers packed with
                  scalar ops, vector mask / counter mode set only when it changes within a block.
6. dce            scalar ops whose results nobody reads (-O1 and up).
-O0 adds serialise (serialise.py) before lower: a full barrier after every pipe instruction.
-O3 adds unroll (unroll.py) before lower: innermost run-time loops run two iterations a trip.
Before them, the AIV program of a MIX_AIC_1_1 kernel goes through mix_one_aiv (mix.py).
Every pass takes and returns the Function; none of them changes what the kernel computes.
Each module states its input and output IR at its top.  Passes import only the IR core
(ir, isa, errors, events), never the frontend, builder, codegen or each other (common.py aside).
"""
from .alloc_events import alloc_events
from .const_fold import const_fold
from .dce import dce
from .insert_sync import insert_sync
from .lower import lower
from .mix import mix_one_aiv
from .place_buffers import place_buffers
from .serialise import serialise
from .unroll import unroll

__all__ = ["mix_one_aiv", "const_fold", "alloc_events", "place_buffers", "insert_sync", "lower", "dce", "serialise", "unroll"]
