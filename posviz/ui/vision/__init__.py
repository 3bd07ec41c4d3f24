"""The /vision page: RoPE in images and video (M-RoPE and 2-D vision RoPE)."""
