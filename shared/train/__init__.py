"""Training stages for the language-model track.

`data` turns tasks into leave-one-out examples (augmented, loss on the answer only); `sft`
fine-tunes with LoRA/QLoRA through trl's SFTTrainer with checkpoints that resume;
`distill` moves a teacher into a smaller student; `ttt` trains a fresh adapter per task;
`preference` mines DPO pairs from the model's own answers and trains with trl; `grpo` holds the
named rewards and GRPO training; `retrain` is the automated train -> evaluate -> mine -> retrain
loop; `throughput` measures. torch and transformers are imported only here (and in the top-level
`gpu_check` harness, which trains and then runs a benchmark).
"""
