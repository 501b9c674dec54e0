"""The status page's numbers (history.py) and HTML (page.py); its route is api/routes/status.py."""
