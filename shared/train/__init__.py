"""Training stages for the language-model track: data, SFT, distillation, test-time training.

`data` turns tasks into leave-one-out examples (augmented, loss on the answer only); `sft`
fine-tunes with LoRA/QLoRA through the transformers Trainer with checkpoints that resume;
`distill` moves a teacher into a smaller student; `ttt` trains a fresh adapter per task;
`throughput` measures tokens/s. torch and transformers are imported only inside these modules.
"""
