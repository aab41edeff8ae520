"""manage.py run_background: the background work (knowledge's vector jobs, live chat's clocks) in its own process."""
