"""Reading what real systems print: nccl-tests tables and NCCL logs."""
