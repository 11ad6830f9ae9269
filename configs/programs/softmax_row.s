# Softmax of one row of 64 fp32 values on one vector core, step by step with the vector ISA.
# Run: npusim asm configs/programs/softmax_row.s [--trace]
.gm_bytes 4096
.fill gm:0x0 f32 64 -2.0 0.0625          # x = -2.0, -1.9375, ..., 1.9375
.print gm:0x400 f32 64                   # softmax(x), written by the program

copy dst=ub:0x0 src=gm:0x0 burst_bytes=256                      # x -> UB
set_flag src=mte2 dst=v event=0
wait_flag src=mte2 dst=v event=0
vcmax.f32 dst=ub:0x100 src=ub:0x0                               # m = max(x): one repeat of 64 lanes
pipe_barrier pipe=v
vbrcb.f32 dst=ub:0x200 src=ub:0x100                             # block 0 of ub:0x200 = m
pipe_barrier pipe=v
vsub.f32 dst=ub:0x300 src0=ub:0x0 src1=ub:0x200 src1_blk=0 src1_rep=0   # x - m (block 0 read by every lane)
pipe_barrier pipe=v
vexp.f32 dst=ub:0x300 src=ub:0x300                              # e = exp(x - m), in place
pipe_barrier pipe=v
vcadd.f32 dst=ub:0x100 src=ub:0x300                             # s = sum(e)
pipe_barrier pipe=v
vbrcb.f32 dst=ub:0x200 src=ub:0x100
pipe_barrier pipe=v
vdiv.f32 dst=ub:0x300 src0=ub:0x300 src1=ub:0x200 src1_blk=0 src1_rep=0 # e / s
set_flag src=v dst=mte3 event=0
wait_flag src=v dst=mte3 event=0
copy dst=gm:0x400 src=ub:0x300 burst_bytes=256                  # result -> GM
